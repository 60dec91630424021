#pragma once
// The engine knobs, with vLLM's names, built from the knob table (engine/config/knobs.h):
// one row per knob, its range, its help text as the tooltip, live knobs first and the
// structural ones ("applies with rebuild") below. Apply sends them to the engine: live
// knobs take effect at the next step; structural ones rebuild the KV pool and ask first.
// Invalid values, and changes the engine could not make, show the engine's message and
// the form shows the knobs in force.
#include <QWidget>

#include <utility>
#include <vector>

#include "ui/bridge/frame.h"

class QLabel;
class QComboBox;
class QFormLayout;

namespace lwb {
struct Knob;
}

namespace lwb::ui {

class EngineBridge;

class KnobsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit KnobsPanel(EngineBridge* bridge, QWidget* parent = nullptr);

  void onFrame(const Frame& frame);
  void showConfig(const EngineConfig& c);  // fields ← config
  EngineConfig collect() const;            // config ← fields; throws lwb::Error on bad JSON text
  // Sends `c` to the engine. Structural changes ask first when `ask`; returns false when
  // cancelled or rejected (the message is shown under the form).
  bool apply(const EngineConfig& c, bool ask = true);
  QString errorText() const;
  // The form's rows in order (vLLM names) and the field of one knob, for tests.
  QStringList knobNames() const;
  QWidget* field(const QString& knobName) const;

  enum class Preset { VllmDefaults, LowLatency, HighThroughput };
  static EngineConfig withPreset(EngineConfig base, Preset p);

 signals:
  void applied(const lwb::EngineConfig& c);

 private:
  QWidget* makeField(const Knob& k);
  void addRow(const Knob& k, QWidget* field);
  void showValue(const Knob& k, QWidget* field, const EngineConfig& c);
  void collectValue(const Knob& k, const QWidget* field, EngineConfig& c) const;
  // "default (2048)" in the two batch knobs and, below them, where that default comes
  // from (vLLM's default for the device the engine runs on).
  void showBatchDefaults();
  EngineConfig configInForce() const;

  EngineBridge* bridge_;
  std::vector<std::pair<const Knob*, QWidget*>> fields_;  // in table order
  QComboBox* preset_;
  QLabel *error_, *defaultsNote_;
  QFormLayout* form_;
};

}  // namespace lwb::ui
