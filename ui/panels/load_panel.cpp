#include "ui/panels/load_panel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/theme.h"

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

LoadPanel::LoadPanel(EngineBridge* bridge, QWidget* parent) : QWidget(parent), bridge_(bridge) {
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

  auto* form = new QFormLayout;
  form->addRow(QStringLiteral("request_rate"), rate_);
  form->addRow(QStringLiteral("num_prompts"), count_);
  form->addRow(QStringLiteral("input_len"), inputLen_);
  form->addRow(QStringLiteral("range_ratio"), rangeRatio_);
  form->addRow(QStringLiteral("output_len"), outputLen_);
  form->addRow(QStringLiteral("shared_prefix_len"), prefixLen_);
  form->addRow(QStringLiteral("num_prefix_groups"), groups_);
  form->addRow(QStringLiteral("seed"), seed_);
  form->addRow(QStringLiteral("ignore_eos"), ignoreEos_);
  for (int i = 0; i < form->rowCount(); ++i)
    if (auto* item = form->itemAt(i, QFormLayout::LabelRole); item && item->widget()) {
      auto* field = form->itemAt(i, QFormLayout::FieldRole)->widget();
      item->widget()->setToolTip(field->toolTip());
      item->widget()->setStyleSheet(QStringLiteral("font-family: monospace;"));
    }

  start_ = new QPushButton(tr("Start load"), this);
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setEnabled(false);
  stop_->setToolTip(tr("Stop submitting and abort the load's requests still in flight"));
  progress_ = new QProgressBar(this);
  progress_->setFormat(tr("%v / %m finished"));
  progress_->setValue(0);
  status_ = new QLabel(tr("Synthetic requests, as `llm-workbench bench` sends them, alongside your chats."), this);
  status_->setWordWrap(true);
  status_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kMutedText)));

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(start_);
  buttons->addWidget(stop_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addStretch();

  timer_.setSingleShot(true);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &LoadPanel::submitDue);
  connect(start_, &QPushButton::clicked, this, &LoadPanel::start);
  connect(stop_, &QPushButton::clicked, this, &LoadPanel::stop);
  connect(bridge_, &EngineBridge::engineAttached, this, [this] {
    timer_.stop();
    plan_.clear();
    pacer_ = ArrivalPacer();
    inFlight_.clear();
    updateProgress();
  });
}

WorkloadOptions LoadPanel::options() const {
  WorkloadOptions w;
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

void LoadPanel::setOptions(const WorkloadOptions& w) {
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

bool LoadPanel::start() {
  const Model* model = bridge_->model();
  if (!model) {
    status_->setText(tr("No model is loaded yet."));
    return false;
  }
  stop();
  try {
    plan_ = makeWorkload(options(), model->tokenizer->ordinaryIds(), model->tokenizer->bosId());
  } catch (const std::exception& e) {
    status_->setText(QString::fromUtf8(e.what()));
    return false;
  }
  bridge_->setWorkload(options());
  pacer_ = ArrivalPacer(plan_);
  numFinished_ = 0;
  clock_.start();
  start_->setEnabled(false);
  stop_->setEnabled(true);
  status_->setText(tr("Running…"));
  emit runningChanged(true);
  submitDue();
  return true;
}

void LoadPanel::submitDue() {
  const double elapsed = clock_.elapsed() / 1000.0;
  const ArrivalPacer::Range due = pacer_.takeDue(elapsed);
  for (size_t i = due.first; i < due.last; ++i) {
    const SyntheticRequest& r = plan_[i];
    RequestInput in;
    in.promptTokenIds = r.promptTokenIds;
    in.sampling = r.sampling;
    in.tag = "load";
    try {
      inFlight_.insert(bridge_->submit(std::move(in)));
    } catch (const std::exception& e) {
      status_->setText(tr("Request %1 refused: %2").arg(i + 1).arg(QString::fromUtf8(e.what())));
      ++numFinished_;
    }
  }
  if (auto wait = pacer_.timeUntilNext(elapsed)) timer_.start(int(std::ceil(*wait * 1000.0)));
  updateProgress();
}

void LoadPanel::stop() {
  timer_.stop();
  for (RequestId id : inFlight_) bridge_->abort(id);
  const bool was = !plan_.empty();
  pacer_.finish();
  if (was) status_->setText(tr("Stopped."));
  start_->setEnabled(true);
  stop_->setEnabled(false);
  if (was) emit runningChanged(false);
}

void LoadPanel::onFrame(const Frame& frame) {
  if (inFlight_.empty()) return;
  const int before = numFinished_;
  for (const auto& f : frame.finished)
    if (inFlight_.erase(f.timeline.id)) ++numFinished_;
  if (numFinished_ != before) updateProgress();  // submissions update it themselves
  if (!plan_.empty() && pacer_.allTaken() && inFlight_.empty() && stop_->isEnabled()) {
    status_->setText(tr("Done: %1 requests.").arg(numFinished_));
    start_->setEnabled(true);
    stop_->setEnabled(false);
    emit runningChanged(false);
  }
}

void LoadPanel::updateProgress() {
  progress_->setMaximum(std::max<int>(1, int(plan_.size())));
  progress_->setValue(numFinished_);
  if (!plan_.empty() && !pacer_.allTaken())
    progress_->setFormat(tr("%1 submitted · %v / %m finished").arg(pacer_.numTaken()));
  else
    progress_->setFormat(tr("%v / %m finished"));
}

}  // namespace lwb::ui
