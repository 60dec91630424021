#pragma once
// The P/D layout: a prefill/decode pair's two instances side by side — the prefill
// instance left, the decode instance right, each titled, with its batch composition per
// step and its KV block map — and the one-click comparison against one colocated design
// on the same hardware. Fed the bridge's frames: the prefill side gets the frame's
// prefillSteps and the snapshot's prefill pool, the decode side the rest.
#include <QWidget>
#include <memory>

#include "ui/bridge/frame.h"

class QLabel;
class QPushButton;

namespace lwb::ui {

class BatchChart;
class KvPanel;

class PdPanel : public QWidget {
  Q_OBJECT
 public:
  enum Side { Prefill = 0, Decode = 1 };
  explicit PdPanel(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  void clear();
  BatchChart* batch(Side side) const { return batch_[side]; }
  KvPanel* kv(Side side) const { return kv_[side]; }
  QPushButton* compareButton() const { return compare_; }
  QLabel* status() const { return status_; }  // what the comparison is doing, or did
  void setSimulatedNote(const QString& text);
  // A colocated engine is attached: the views stay empty and say how to start a pair.
  void setPairAttached(bool attached);

 signals:
  void compareRequested();

 private:
  std::shared_ptr<const EngineSnapshot> prefillSnapshot(const std::shared_ptr<const EngineSnapshot>& s);

  BatchChart* batch_[2];
  KvPanel* kv_[2];
  QLabel* title_[2];
  QLabel* hint_;
  QLabel* status_;
  QPushButton* compare_;
  std::shared_ptr<const EngineSnapshot> source_, derived_;  // the last prefill snapshot, and what it came from
};

}  // namespace lwb::ui
