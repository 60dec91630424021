#include "ui/panels/knobs_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <optional>

#include "engine/config/knobs.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/panels/knob_fields.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), int(s.size())); }

}  // namespace

QWidget* KnobsPanel::makeField(const Knob& k) { return makeKnobField(k, this); }

void KnobsPanel::addRow(const Knob& k, QWidget* field) {
  auto* label = new QLabel(qs(k.name), this);
  const QString tip = knobTooltip(k);
  label->setToolTip(tip);
  field->setToolTip(tip);
  label->setStyleSheet(QStringLiteral("font-family: monospace;"));
  form_->addRow(label, field);
  fields_.push_back({&k, field});
}

KnobsPanel::KnobsPanel(EngineBridge* bridge, QWidget* parent) : QWidget(parent), bridge_(bridge) {
  form_ = new QFormLayout;
  form_->setLabelAlignment(Qt::AlignRight);
  preset_ = new QComboBox(this);
  preset_->addItems({tr("— preset —"), tr("vLLM defaults"), tr("low latency"), tr("high throughput")});
  preset_->setToolTip(tr("Fill the scheduling knobs from a preset; press Apply to send them"));
  defaultsNote_ = new QLabel(this);
  defaultsNote_->setWordWrap(true);
  defaultsNote_->setToolTip(tr("vLLM's effective defaults depend on the platform: CPU 2048 / 128; GPUs "
                               "2048 / 256, and 8192 / 1024 on GPUs with at least 70 GiB (H100 / H200 "
                               "class, not A100). Set a value to override."));
  bool structuralShown = false;
  for (const Knob& k : knobTable()) {
    if (k.structural() && !structuralShown) {
      auto* structural = new QLabel(tr("<b>Structural</b> — these apply with a rebuild of the KV cache"), this);
      structural->setStyleSheet(
          QStringLiteral("color: %1; margin-top: 6px;").arg(theme::htmlColor(theme::kMarker)));
      form_->addRow(structural);
      structuralShown = true;
    }
    addRow(k, makeField(k));
    if (k.name == knob::kMaxNumSeqs) form_->addRow(QString(), defaultsNote_);
  }

  auto* apply = new QPushButton(tr("Apply"), this);
  apply->setToolTip(tr("Send the knobs to the engine; the change is marked on every time chart"));
  auto* revert = new QPushButton(tr("Revert"), this);
  revert->setToolTip(tr("Show the knobs the engine is using now"));
  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kPreempt)));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(preset_);
  buttons->addStretch();
  buttons->addWidget(revert);
  buttons->addWidget(apply);

  auto* inner = new QWidget(this);
  auto* innerLayout = new QVBoxLayout(inner);
  innerLayout->addLayout(form_);
  innerLayout->addWidget(error_);
  innerLayout->addStretch();
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(scroll, 1);
  layout->addLayout(buttons);

  // A text field (speculative_config) may not parse: say why instead of applying.
  auto collected = [this]() -> std::optional<EngineConfig> {
    try {
      return collect();
    } catch (const std::exception& e) {
      error_->setText(tr("Not applied: %1").arg(QString::fromUtf8(e.what())));
      return std::nullopt;
    }
  };
  connect(apply, &QPushButton::clicked, this, [this, collected] {
    if (auto c = collected()) this->apply(*c);
  });
  connect(revert, &QPushButton::clicked, this, [this] { showConfig(configInForce()); });
  connect(preset_, qOverload<int>(&QComboBox::activated), this, [this, collected](int i) {
    if (auto c = collected(); c && i > 0) showConfig(withPreset(*c, Preset(i - 1)));
    preset_->setCurrentIndex(0);
  });
  connect(bridge_, &EngineBridge::engineAttached, this, [this] { showConfig(configInForce()); });
  showConfig(EngineConfig{});
}

EngineConfig KnobsPanel::configInForce() const {
  return bridge_->config();
}

QStringList KnobsPanel::knobNames() const {
  QStringList names;
  for (const auto& [k, field] : fields_) names << qs(k->name);
  return names;
}

QWidget* KnobsPanel::field(const QString& knobName) const {
  for (const auto& [k, f] : fields_)
    if (qs(k->name) == knobName) return f;
  return nullptr;
}

EngineConfig KnobsPanel::withPreset(EngineConfig c, Preset p) {
  const EngineConfig d;
  c.maxNumBatchedTokens = d.maxNumBatchedTokens;
  c.maxNumSeqs = d.maxNumSeqs;
  c.enableChunkedPrefill = d.enableChunkedPrefill;
  c.enablePrefixCaching = d.enablePrefixCaching;
  c.longPrefillTokenThreshold = d.longPrefillTokenThreshold;
  c.schedulingPolicy = d.schedulingPolicy;
  c.schedulerReserveFullIsl = d.schedulerReserveFullIsl;
  if (p == Preset::LowLatency) {
    c.maxNumBatchedTokens = 256;   // short steps: decodes never wait long
    c.maxNumSeqs = 64;
    c.longPrefillTokenThreshold = 128;
  } else if (p == Preset::HighThroughput) {
    c.maxNumBatchedTokens = 8192;  // few, big steps: prefill in one go
    c.maxNumSeqs = 256;
  }
  return c;
}

void KnobsPanel::showBatchDefaults() {
  const auto snap = bridge_->snapshot();
  const BatchDefaults d = vllmBatchDefaults(snap ? snap->device : DeviceInfo{});
  if (auto* s = qobject_cast<QSpinBox*>(field(qs(knob::kMaxNumBatchedTokens))))
    s->setSpecialValueText(tr("default (%1)").arg(d.maxNumBatchedTokens));
  if (auto* s = qobject_cast<QSpinBox*>(field(qs(knob::kMaxNumSeqs))))
    s->setSpecialValueText(tr("default (%1)").arg(d.maxNumSeqs));
  defaultsNote_->setText(tr("default = %1: %2 tokens, %3 sequences")
                             .arg(QString::fromStdString(d.source))
                             .arg(d.maxNumBatchedTokens)
                             .arg(d.maxNumSeqs));
}

void KnobsPanel::showValue(const Knob& k, QWidget* f, const EngineConfig& c) { showKnobValue(k, f, k.get(c)); }

void KnobsPanel::collectValue(const Knob& k, const QWidget* f, EngineConfig& c) const {
  if (auto* box = qobject_cast<const QCheckBox*>(f)) return k.set(c, box->isChecked());
  if (auto* edit = qobject_cast<const QLineEdit*>(f))  // throws lwb::Error naming the field
    return k.set(c, k.parse(edit->text().trimmed().toStdString()));
  if (auto* combo = qobject_cast<const QComboBox*>(f)) {
    if (k.kind == KnobKind::Choice) return k.set(c, combo->currentData().toString().toStdString());
    return k.set(c, int64_t(combo->currentData().toLongLong()));
  }
  if (auto* d = qobject_cast<const QDoubleSpinBox*>(f)) {
    if (!knobInMiB(k)) return k.set(c, d->value());
    const int64_t bytes = int64_t(d->value() * kKnobMiB);
    // Keep the exact byte count when the MiB field was not edited.
    if (std::llabs(bytes - std::get<int64_t>(k.get(c))) >= int64_t(kKnobMiB / 2)) k.set(c, bytes);
    return;
  }
  if (auto* s = qobject_cast<const QSpinBox*>(f)) k.set(c, int64_t(s->value()));
}

void KnobsPanel::showConfig(const EngineConfig& c) {
  showBatchDefaults();
  for (const auto& [k, f] : fields_) showValue(*k, f, c);
}

EngineConfig KnobsPanel::collect() const {
  EngineConfig c = configInForce();  // fields not on the form (device index) stay as they are
  for (const auto& [k, f] : fields_) collectValue(*k, f, c);
  return c;
}

QString KnobsPanel::errorText() const { return error_->text(); }

bool KnobsPanel::apply(const EngineConfig& c, bool ask) {
  if (!bridge_->attached()) return false;
  bool abortInFlight = false;
  if (c.structuralDiffers(bridge_->config()) && ask) {
    QStringList structural;
    for (const Knob& k : knobTable())
      if (k.rebuilds(bridge_->config(), c)) structural << qs(k.name);
    QMessageBox box(QMessageBox::Question, tr("Rebuild the KV cache?"),
                    tr("Changing %1 rebuilds the engine's KV cache. Let running requests finish first, "
                       "or abort them?")
                        .arg(structural.join(QStringLiteral(", "))),
                    QMessageBox::Cancel, this);
    auto* drain = box.addButton(tr("Drain, then rebuild"), QMessageBox::AcceptRole);
    auto* abort = box.addButton(tr("Abort in-flight"), QMessageBox::DestructiveRole);
    box.exec();
    if (box.clickedButton() != drain && box.clickedButton() != abort) return false;
    abortInFlight = box.clickedButton() == abort;
  }
  try {
    bridge_->setConfig(c, abortInFlight);
  } catch (const std::exception& e) {
    error_->setText(tr("Not applied: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  error_->clear();
  emit applied(c);
  return true;
}

void KnobsPanel::onFrame(const Frame& frame) {
  if (!frame.configChanges.empty()) showConfig(frame.configChanges.back().newConfig);
  for (const auto& e : frame.errors) {
    error_->setText(tr("Engine error: %1").arg(QString::fromStdString(e.message)));
    if (e.configInForce) showConfig(*e.configInForce);  // a change failed: the old knobs stay
  }
}

}  // namespace lwb::ui
