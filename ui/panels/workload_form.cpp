#include "ui/panels/workload_form.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

namespace lwb::ui {

namespace {
QSpinBox* intField(QWidget* parent, int lo, int hi, int value, const QString& tip) {
  auto* s = new QSpinBox(parent);
  s->setRange(lo, hi);
  s->setValue(value);
  s->setToolTip(tip);
  s->setAccelerated(true);
  return s;
}
}  // namespace

WorkloadForm::WorkloadForm(const QString& stopToolTip, QWidget* parent) : QWidget(parent), form_(new QFormLayout) {
  rate_ = new QDoubleSpinBox(this);
  rate_->setRange(0, 1000);
  rate_->setDecimals(1);
  rate_->setValue(4);
  rate_->setSuffix(tr(" req/s"));
  rate_->setSpecialValueText(tr("inf (all at once)"));
  rate_->setToolTip(tr("request_rate: Poisson arrivals at this mean rate. inf: every request arrives at t = 0 "
                       "(a burst: measures peak throughput; TTFT then mostly measures queueing)."));
  count_ = intField(this, 1, kMaxWorkloadPrompts, 200, tr("num_prompts: how many requests to send"));
  inputLen_ = intField(this, 1, 100000, 128, tr("input_len: each prompt's own part (after the shared prefix), in tokens"));
  rangeRatio_ = new QDoubleSpinBox(this);
  rangeRatio_->setRange(0, 0.99);
  rangeRatio_->setSingleStep(0.1);
  rangeRatio_->setValue(0.5);
  rangeRatio_->setToolTip(tr("range_ratio r: lengths uniform in [L(1−r), L(1+r)]"));
  outputLen_ = intField(this, 1, 100000, 64, tr("output_len: max_tokens of every request"));
  prefixLen_ = intField(this, 0, 100000, 128,
                        tr("shared_prefix_len: tokens every prompt of a group starts with (like a system "
                           "prompt) — what the prefix cache can reuse"));
  groups_ = intField(this, 1, 10000, 2, tr("num_prefix_groups: how many different shared prefixes, round-robin"));
  seed_ = intField(this, 0, 1 << 30, 0, tr("seed: same seed → same prompts and arrival times"));
  ignoreEos_ = new QCheckBox(this);
  ignoreEos_->setChecked(true);
  ignoreEos_->setToolTip(tr("ignore_eos: always generate output_len tokens, for comparable runs"));

  const std::pair<const char*, QWidget*> rows[] = {
      {"request_rate", rate_},           {"num_prompts", count_},           {"input_len", inputLen_},
      {"range_ratio", rangeRatio_},      {"output_len", outputLen_},        {"shared_prefix_len", prefixLen_},
      {"num_prefix_groups", groups_},    {"seed", seed_},                   {"ignore_eos", ignoreEos_}};
  for (const auto& [name, field] : rows) {
    auto* label = new QLabel(QString::fromLatin1(name), this);  // vLLM's spelling, as the CLI's flags
    label->setToolTip(field->toolTip());
    label->setStyleSheet(QStringLiteral("font-family: monospace;"));
    form_->addRow(label, field);
  }
  addButtons(stopToolTip);
}

void WorkloadForm::addButtons(const QString& stopToolTip) {
  start_ = new QPushButton(tr("Start load"), this);
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setEnabled(false);
  stop_->setToolTip(stopToolTip);
  connect(start_, &QPushButton::clicked, this, &WorkloadForm::startClicked);
  connect(stop_, &QPushButton::clicked, this, &WorkloadForm::stopClicked);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(start_);
  buttons->addWidget(stop_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(form_);
  layout->addLayout(buttons);
}

void WorkloadForm::setRunning(bool running) {
  start_->setEnabled(!running);
  stop_->setEnabled(running);
}

void WorkloadForm::setButtonTexts(const QString& start, const QString& startToolTip, const QString& stop) {
  start_->setText(start);
  start_->setToolTip(startToolTip);
  stop_->setText(stop);
}

void WorkloadForm::setRateEnabled(bool enabled) { rate_->setEnabled(enabled); }

bool WorkloadForm::showsRunning() const { return stop_->isEnabled(); }

WorkloadOptions WorkloadForm::options() const {
  WorkloadOptions w = unshown_;
  w.numPrompts = count_->value();
  w.requestRate = rate_->value() <= 0 ? std::numeric_limits<double>::infinity() : rate_->value();
  w.inputLen = inputLen_->value();
  w.rangeRatio = rangeRatio_->value();
  w.outputLen = outputLen_->value();
  w.sharedPrefixLen = prefixLen_->value();
  w.numPrefixGroups = groups_->value();
  w.ignoreEos = ignoreEos_->isChecked();
  w.seed = uint64_t(seed_->value());
  return w;
}

void WorkloadForm::setOptions(const WorkloadOptions& w) {
  unshown_ = w;
  count_->setValue(w.numPrompts);
  rate_->setValue(std::isinf(w.requestRate) ? 0 : w.requestRate);
  inputLen_->setValue(w.inputLen);
  rangeRatio_->setValue(w.rangeRatio);
  outputLen_->setValue(w.outputLen);
  prefixLen_->setValue(w.sharedPrefixLen);
  groups_->setValue(w.numPrefixGroups);
  ignoreEos_->setChecked(w.ignoreEos);
  seed_->setValue(int(w.seed));
}

}  // namespace lwb::ui
