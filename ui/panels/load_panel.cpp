#include "ui/panels/load_panel.h"

#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/panels/workload_form.h"
#include "ui/theme.h"

namespace lwb::ui {

LoadPanel::LoadPanel(EngineBridge* bridge, QWidget* parent)
    : QWidget(parent),
      bridge_(bridge),
      form_(new WorkloadForm(tr("Stop submitting and abort the load's requests still in flight"), this)) {
  progress_ = new QProgressBar(this);
  progress_->setFormat(tr("%v / %m finished"));
  progress_->setValue(0);
  status_ = new QLabel(tr("Synthetic requests, as `llm-workbench bench` sends them, alongside your chats."), this);
  status_->setWordWrap(true);
  status_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kMutedText)));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(form_);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addStretch();

  timer_.setSingleShot(true);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &LoadPanel::submitDue);
  connect(form_, &WorkloadForm::startClicked, this, &LoadPanel::start);
  connect(form_, &WorkloadForm::stopClicked, this, &LoadPanel::stop);
  connect(bridge_, &EngineBridge::engineAttached, this, [this] {
    timer_.stop();
    plan_.clear();
    pacer_ = ArrivalPacer();
    inFlight_.clear();
    updateProgress();
  });
}

WorkloadOptions LoadPanel::options() const { return form_->options(); }

void LoadPanel::setOptions(const WorkloadOptions& w) { form_->setOptions(w); }

bool LoadPanel::start() {
  const Model* model = bridge_->model();
  if (!model) {
    status_->setText(tr("No model is loaded yet."));
    return false;
  }
  stop();
  try {
    plan_ = makeWorkloadFor(options(), *model);
  } catch (const std::exception& e) {
    status_->setText(tr("Not started: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  bridge_->setWorkload(options());
  pacer_ = ArrivalPacer(plan_);
  numFinished_ = 0;
  clock_.start();
  // A simulated engine's clock is virtual: the whole plan goes at once, each request
  // stamped with its arrival on that clock, and the engine loop holds it until then.
  const auto snap = bridge_->snapshot();
  simulatedStart_ = snap && snap->device.backend == "sim" ? std::optional<double>(snap->time) : std::nullopt;
  form_->setRunning(true);
  status_->setText(tr("Running…"));
  emit runningChanged(true);
  submitDue();
  return true;
}

void LoadPanel::submitDue() {
  const double elapsed = simulatedStart_ ? std::numeric_limits<double>::infinity() : clock_.elapsed() / 1000.0;
  const ArrivalPacer::Range due = pacer_.takeDue(elapsed);
  for (size_t i = due.first; i < due.last; ++i) {
    const SyntheticRequest& r = plan_[i];
    RequestInput in;
    in.promptTokenIds = r.promptTokenIds;
    in.sampling = r.sampling;
    in.tag = "load";
    if (simulatedStart_) in.arrivalTime = *simulatedStart_ + r.arrivalTime;
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
  form_->setRunning(false);
  if (was) emit runningChanged(false);
}

void LoadPanel::onFrame(const Frame& frame) {
  if (inFlight_.empty()) return;
  const int before = numFinished_;
  for (const auto& f : frame.finished)
    if (inFlight_.erase(f.timeline.id)) ++numFinished_;
  if (numFinished_ != before) updateProgress();  // submissions update it themselves
  if (!plan_.empty() && pacer_.allTaken() && inFlight_.empty() && form_->showsRunning()) {
    status_->setText(tr("Done: %n request(s).", "", numFinished_));
    form_->setRunning(false);
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
