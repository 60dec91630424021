#pragma once
// File ▸ Simulate…: the hardware (a preset or a calibrated profile file), the model (a
// shipped shape or any folder / config.json), tensor_parallel_size and the speed of the
// virtual clock. A line under the form sizes the KV pool as vLLM would (or says why the
// model does not fit) while the choices change, before anything starts.
#include <QDialog>

#include "engine/config/engine_config.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QDialogButtonBox;

namespace lwb::ui {

class SimulateDialog : public QDialog {
  Q_OBJECT
 public:
  // `base`: the knobs to keep (the running engine's, or the window's).
  SimulateDialog(const EngineConfig& base, QWidget* parent = nullptr);

  QString modelPath() const;   // a folder holding config.json, or the file
  EngineConfig config() const; // base with backend sim, sim_hardware and tensor_parallel_size
  double speed() const;        // 1, 10, or 0 = as fast as possible

  // For tests: choose by the text shown / the data behind an item.
  void setHardware(const QString& nameOrPath);
  void setModelPath(const QString& path);
  void setTensorParallelSize(int n);
  QString preview() const;     // the KV pool line, or the error
  bool acceptable() const;     // the preview found no error

 private:
  void browseHardware();
  void browseModel();
  void updatePreview();

  EngineConfig base_;
  QComboBox *hardware_, *model_, *speed_;
  QSpinBox* tp_;
  QLabel* preview_;
  QDialogButtonBox* buttons_;
  bool ok_ = false;
};

}  // namespace lwb::ui
