#pragma once
// Remote mode on a prefill/decode deployment (`llm-workbench --prefill-endpoint URL
// --decode-endpoint URL`): the two servers of a P/D pair — vLLM's kv_producer and
// kv_consumer, or two `llm-workbench serve` instances — watched side by side, the
// prefill instance left and the decode instance right, each in its own remote window
// (its status, configuration, gauges over time and server views) with its own session,
// so one endpoint going away leaves the other's views running.
#include <QMainWindow>

#include "ui/remote/remote_window.h"

class QLabel;

namespace lwb::ui {

class RemotePairWindow : public QMainWindow {
  Q_OBJECT
 public:
  enum Side { Prefill = 0, Decode = 1 };
  // `prefill` and `decode`: each endpoint's options (URL, key, model, KV events).
  RemotePairWindow(const RemoteOptions& prefill, const RemoteOptions& decode, QWidget* parent = nullptr);

  RemoteWindow* side(Side s) const { return sides_[s]; }
  QString title(Side s) const;  // the heading above that side

 private:
  RemoteWindow* sides_[2];
  QLabel* titles_[2];
};

}  // namespace lwb::ui
