#pragma once
// Scheduler knobs, with vLLM's names. Apply sends them to the engine: most take effect at
// the next step; structural ones (block_size, KV budget, block override, backend,
// threads) rebuild the KV pool and ask first. Invalid values show the engine's message.
#include <QWidget>

#include "ui/bridge/frame.h"

class QSpinBox;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QFormLayout;
class QPushButton;

namespace lwb::ui {

class EngineBridge;

class KnobsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit KnobsPanel(EngineBridge* bridge, QWidget* parent = nullptr);

  void onFrame(const Frame& frame);
  void showConfig(const EngineConfig& c);  // fields ← config
  EngineConfig collect() const;            // config ← fields
  // Sends `c` to the engine. Structural changes ask first when `ask`; returns false when
  // cancelled or rejected (the message is shown under the form).
  bool apply(const EngineConfig& c, bool ask = true);
  QString errorText() const;
  QSpinBox* maxNumBatchedTokens() const { return maxBatched_; }

  enum class Preset { VllmDefaults, LowLatency, HighThroughput };
  static EngineConfig withPreset(EngineConfig base, Preset p);

 signals:
  void applied(const lwb::EngineConfig& c);

 private:
  QSpinBox* spin(int lo, int hi, const QString& special, const QString& tip);
  void addRow(const QString& name, QWidget* field, const QString& tip);
  // "default (2048)" in the two batch knobs and, below them, where that default comes
  // from (vLLM's default for the device the engine runs on).
  void showBatchDefaults();

  EngineBridge* bridge_;
  QSpinBox *maxBatched_, *maxSeqs_, *longPrefill_, *maxModelLen_, *blockOverride_, *threads_;
  QCheckBox *chunked_, *prefixCaching_, *reserveFullIsl_;
  QComboBox *policy_, *blockSize_, *backend_, *preset_;
  QDoubleSpinBox* kvMiB_;
  QLabel *error_, *defaultsNote_;
  QFormLayout* form_;
};

}  // namespace lwb::ui
