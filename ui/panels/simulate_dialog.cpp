#include "ui/panels/simulate_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

#include "engine/config/knobs.h"
#include "engine/exec/sim/cost_model.h"
#include "engine/exec/sim/hardware_profile.h"
#include "engine/exec/sim/kv_pool.h"
#include "engine/exec/sim/sim_executor.h"
#include "engine/model/model_config.h"
#include "ui/panels/knob_fields.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
constexpr char kBrowse[] = "browse";

QString configFile(const QString& path) {
  return QFileInfo(path).isDir() ? path + QStringLiteral("/config.json") : path;
}

}  // namespace

SimulateDialog::SimulateDialog(const EngineConfig& base, QWidget* parent) : QDialog(parent), base_(base) {
  setWindowTitle(tr("Simulate"));
  hardware_ = new QComboBox(this);
  for (const std::string& name : sim::hardwarePresetNames()) {
    QString label = qs(name);
    try {
      label += QStringLiteral(" — ") + qs(sim::loadHardwareProfile(name).description);
    } catch (const std::exception&) {  // a broken preset still shows; the preview says why
    }
    hardware_->addItem(label, qs(name));
  }
  hardware_->addItem(tr("Profile file…"), QString::fromLatin1(kBrowse));
  hardware_->setToolTip(knobHelp(*findKnob(knob::kSimHardware)));
  model_ = new QComboBox(this);
  for (const std::string& name : sim::simModelNames())
    model_->addItem(qs(name), qs(sim::simModelDir() + "/" + name));
  model_->addItem(tr("Model folder or config.json…"), QString::fromLatin1(kBrowse));
  model_->setToolTip(tr("Only config.json is read: no weights are needed. Prompts are seeded random token ids "
                        "when the folder has no tokenizer."));
  tp_ = new QSpinBox(this);
  tp_->setRange(int(findKnob(knob::kTensorParallelSize)->min), int(findKnob(knob::kTensorParallelSize)->max));
  tp_->setValue(std::max(1, base.executor.tensorParallelSize));
  tp_->setToolTip(knobHelp(*findKnob(knob::kTensorParallelSize)));
  speed_ = new QComboBox(this);
  speed_->addItem(tr("1× (real time)"), 1.0);
  speed_->addItem(tr("10×"), 10.0);
  speed_->addItem(tr("As fast as possible"), 0.0);
  speed_->setToolTip(tr("How fast the virtual clock runs; Engine ▸ Simulation speed changes it later, Engine ▸ "
                        "Pause stops it"));
  preview_ = new QLabel(this);
  preview_->setWordWrap(true);
  preview_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons_->button(QDialogButtonBox::Ok)->setText(tr("Simulate"));
  auto* form = new QFormLayout(this);
  form->addRow(tr("&Hardware:"), hardware_);
  form->addRow(tr("&Model:"), model_);
  form->addRow(tr("&Tensor parallel:"), tp_);
  form->addRow(tr("&Speed:"), speed_);
  form->addRow(preview_);
  form->addRow(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(hardware_, &QComboBox::activated, this, [this] {
    if (hardware_->currentData().toString() == QLatin1String(kBrowse)) browseHardware();
    updatePreview();
  });
  connect(model_, &QComboBox::activated, this, [this] {
    if (model_->currentData().toString() == QLatin1String(kBrowse)) browseModel();
    updatePreview();
  });
  connect(tp_, &QSpinBox::valueChanged, this, &SimulateDialog::updatePreview);
  if (const int i = hardware_->findData(qs(base.executor.simHardware)); i >= 0) hardware_->setCurrentIndex(i);
  if (const int i = model_->findText(QStringLiteral("llama-3-8b")); i >= 0) model_->setCurrentIndex(i);
  updatePreview();
}

void SimulateDialog::browseHardware() {
  const QString path = QFileDialog::getOpenFileName(this, tr("A hardware profile (llm-workbench calibrate --out)"), {},
                                                    tr("Profiles (*.json)"));
  if (!path.isEmpty()) setHardware(path);
  else hardware_->setCurrentIndex(0);
}

void SimulateDialog::browseModel() {
  const QString path = QFileDialog::getExistingDirectory(this, tr("A model folder holding config.json"));
  if (!path.isEmpty()) setModelPath(path);
  else model_->setCurrentIndex(0);
}

void SimulateDialog::setHardware(const QString& nameOrPath) {
  int i = hardware_->findData(nameOrPath);
  if (i < 0) {
    hardware_->insertItem(hardware_->count() - 1, QFileInfo(nameOrPath).fileName(), nameOrPath);
    i = hardware_->count() - 2;
  }
  hardware_->setCurrentIndex(i);
  updatePreview();
}

void SimulateDialog::setModelPath(const QString& path) {
  int i = model_->findData(path);
  if (i < 0) {
    model_->insertItem(model_->count() - 1, QFileInfo(path).fileName(), path);
    i = model_->count() - 2;
  }
  model_->setCurrentIndex(i);
  updatePreview();
}

void SimulateDialog::setTensorParallelSize(int n) { tp_->setValue(n); }

QString SimulateDialog::modelPath() const { return model_->currentData().toString(); }

EngineConfig SimulateDialog::config() const {
  EngineConfig c = base_;
  c.executor.backend = "sim";
  c.executor.simHardware = hardware_->currentData().toString().toStdString();
  c.executor.tensorParallelSize = tp_->value();
  c.speculative = {};  // a simulation has no drafts to accept
  return c;
}

double SimulateDialog::speed() const { return speed_->currentData().toDouble(); }
QString SimulateDialog::preview() const { return preview_->text(); }
bool SimulateDialog::acceptable() const { return ok_; }

// vLLM's KV sizing for the choices, at the knobs' batch limits (vLLM's defaults for the
// device when 0).
void SimulateDialog::updatePreview() {
  ok_ = false;
  try {
    const EngineConfig c = config();
    const sim::HardwareProfile hw = sim::loadHardwareProfile(c.executor.simHardware);
    const ModelConfig mc = loadModelConfig(configFile(modelPath()).toStdString());
    const sim::SimModel m = simModelFor(mc, c.executor, hw);
    const EngineConfig r = c.resolvedFor(simulatedDeviceInfo(hw, m));
    const int maxLen = r.effectiveMaxModelLen(mc.maxPositionEmbeddings);
    if (hw.isCpu()) {
      preview_->setText(tr("%1 · %2 layers · KV pool sized as the CPU backend sizes it")
                            .arg(qs(hw.description))
                            .arg(mc.numHiddenLayers));
    } else {
      sim::KvPoolInputs in;
      in.gpuMemoryUtilization = c.executor.gpuMemoryUtilization;
      in.blockSize = c.blockSize;
      in.maxNumBatchedTokens = r.maxNumBatchedTokens;
      in.maxNumSeqs = r.maxNumSeqs;
      in.maxModelLen = maxLen;
      const sim::KvPool pool = sim::sizeKvPool(m, hw, in);
      preview_->setText(tr("%1 GiB of weights per GPU · %2 KV blocks (%3 tokens) · %4× concurrency at %5 tokens "
                           "per request")
                            .arg(pool.weightBytes / (1024.0 * 1024 * 1024), 0, 'f', 1)
                            .arg(pool.numBlocks)
                            .arg(pool.numTokens())
                            .arg(pool.maxConcurrency(maxLen), 0, 'f', 2)
                            .arg(maxLen));
    }
    preview_->setStyleSheet({});
    ok_ = true;
  } catch (const std::exception& e) {
    preview_->setText(tr("Cannot simulate: %1").arg(QString::fromUtf8(e.what())));
    preview_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kPreempt)));
  }
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok_);
}

}  // namespace lwb::ui
