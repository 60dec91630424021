#pragma once
// The remote server's knobs, read-only: the same form as the engine's knobs panel (built
// from the knob table, one field per knob), every field disabled, filled with what the
// server reports about its configuration (vLLM's vllm:cache_config_info labels,
// llama.cpp's /props). They are the server's start-up flags: the panel says so, and a
// knob the server does not report is shown as unknown rather than as our default.
#include <QWidget>

#include <map>

#include "remote/server_config.h"
#include "remote/server_knobs.h"

class QLabel;
class QFormLayout;

namespace lwb::ui {

class RemoteKnobsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RemoteKnobsPanel(QWidget* parent = nullptr);

  void showServerConfig(const remote::RemoteServerConfig& config);
  void clear();  // every knob unknown (a new server)

  // For tests: the field of a knob (disabled), whether the server reported it, and the
  // text beside it ("16 — vllm:cache_config_info block_size" or "unknown: ...").
  QWidget* field(const QString& knobName) const;
  bool isKnown(const QString& knobName) const;
  QString valueText(const QString& knobName) const;
  QString noteText() const;

 private:
  struct Row {
    const Knob* knob;
    QWidget* field;
    QLabel* value;
  };
  void addRow(const Knob& k);
  void showRow(Row& row, const remote::ServerKnobValue* v);
  const Row* find(const QString& knobName) const;

  QFormLayout* form_;
  QLabel *note_, *problems_;
  std::vector<Row> rows_;  // in table order
  std::map<std::string, remote::ServerKnobValue> known_;
};

}  // namespace lwb::ui
