#include "ui/panels/lessons_panel.h"

#include <algorithm>

#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include "engine/bench/bench_runner.h"
#include "engine/bench/goodput.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/bridge/run_data.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/runs_panel.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
QString shown(const Phrase& p) { return lessonText(p); }
}  // namespace

QString lessonText(const Phrase& phrase) {
  return qs(render(phrase, [](const char* text) { return QCoreApplication::translate("Lessons", text).toStdString(); }));
}

LessonsPanel::LessonsPanel(EngineBridge* bridge, LoadPanel* load, RunsPanel* runs, QWidget* parent)
    : QWidget(parent), bridge_(bridge), load_(load), runsPanel_(runs) {
  lesson_ = new QComboBox(this);
  for (const Lesson& l : lessons()) lesson_->addItem(qs(l.name), qs(l.name));
  lesson_->setToolTip(tr("Each lesson runs a prepared workload under a few settings of this engine and writes what "
                         "changed, from the numbers measured"));
  scale_ = new QDoubleSpinBox(this);
  scale_->setRange(0.05, 4);
  scale_->setSingleStep(0.25);
  scale_->setValue(1);
  scale_->setPrefix(tr("size ×"));
  scale_->setToolTip(tr("The workloads' size: 1 takes about a minute per lesson on a 2-core CPU"));
  run_ = new QPushButton(tr("Run lesson"), this);
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setEnabled(false);
  question_ = new QLabel(this);
  question_->setWordWrap(true);
  QFont bold = question_->font();
  bold.setBold(true);
  question_->setFont(bold);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kMutedText)));
  finding_ = new QTextBrowser(this);
  finding_->setPlaceholderText(tr("The finding appears here, written from this run's numbers."));
  auto* row = new QHBoxLayout;
  row->addWidget(lesson_, 1);
  row->addWidget(scale_);
  row->addWidget(run_);
  row->addWidget(stop_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(row);
  layout->addWidget(question_);
  layout->addWidget(status_);
  layout->addWidget(finding_, 1);
  connect(lesson_, &QComboBox::currentIndexChanged, this, &LessonsPanel::describe);
  connect(run_, &QPushButton::clicked, this, [this] { start(scale_->value()); });
  connect(stop_, &QPushButton::clicked, this, &LessonsPanel::stop);
  connect(load_, &LoadPanel::runningChanged, this, &LessonsPanel::onLoadRunning);
  describe();
}

void LessonsPanel::describe() {
  const Lesson& l = lessons().at(size_t(std::max(0, lesson_->currentIndex())));
  question_->setText(shown(l.question));
}

void LessonsPanel::selectLesson(const QString& name) {
  if (const int i = lesson_->findData(name); i >= 0) lesson_->setCurrentIndex(i);
}

QString LessonsPanel::finding() const { return finding_->toPlainText(); }
QString LessonsPanel::status() const { return status_->text(); }

LessonsPanel::~LessonsPanel() {
  if (!pairThread_) return;
  cancelPair_ = true;
  pairThread_->wait();
  delete pairThread_;
}

bool LessonsPanel::start(double scale) {
  if (running() || pairThread_) return false;
  if (!bridge_->attached()) {
    status_->setText(tr("No engine is running yet."));
    return false;
  }
  const Lesson& l = lessons().at(size_t(lesson_->currentIndex()));
  if (const Phrase why = unsupportedReason(l, bridge_->config()); !why.empty()) {
    finding_->setPlainText(shown(why));
    status_->setText(tr("This lesson cannot run on this engine."));
    return false;
  }
  before_ = bridge_->config();
  settings_ = l.settings(before_, scale);
  runs_.clear();
  finding_->clear();
  current_ = 0;
  run_->setEnabled(false);
  stop_->setEnabled(true);
  lesson_->setEnabled(false);
  startSetting();
  return true;
}

void LessonsPanel::startSetting() {
  const LessonSetting& s = settings_[size_t(current_)];
  status_->setText(tr("Run %1 of %2: %3").arg(current_ + 1).arg(settings_.size()).arg(shown(s.label)));
  if (s.pd) return startPairRun();  // the views keep the previous run meanwhile
  emit resetRequested();
  bridge_->setConfig(s.knobs, true);
  load_->setOptions(s.workload);
  // The knobs reach the engine loop first: the load's requests queue behind the rebuild.
  // (start() first stops the previous load, which reports it stopped: not this run's end.)
  if (!load_->start()) {
    status_->setText(tr("The lesson's workload was refused; see the load generator."));
    stop();
    return;
  }
  waitingForLoad_ = true;
}

void LessonsPanel::onLoadRunning(bool isRunning) {
  if (isRunning || !waitingForLoad_ || !running()) return;
  waitingForLoad_ = false;
  const LessonSetting& s = settings_[size_t(current_)];
  LessonRun r;
  r.setting = s;
  r.report = summarizeRun(bridge_->run());
  r.steps.assign(bridge_->run().steps.begin(), bridge_->run().steps.end());
  if (const auto snap = bridge_->snapshot()) r.numKvBlocks = int(snap->kvBlocks.size());
  r.blockSize = s.knobs.blockSize;
  if (!s.goodput.empty()) applyGoodput(r.report, parseGoodput(s.goodput));
  keepRun(std::move(r), bridge_->run());
}

// A pair's setting, on its own thread at low priority; the window's engine is idle
// meanwhile (the previous setting's load has ended) and its views keep that run.
void LessonsPanel::startPairRun() {
  status_->setText(tr("Run %1 of %2: %3, on a prefill and a decode instance of their own; the run appears in the "
                      "Runs view when it ends.")
                       .arg(current_ + 1)
                       .arg(settings_.size())
                       .arg(shown(settings_[size_t(current_)].label)));
  cancelPair_ = false;
  pairError_.clear();
  pairThread_ = QThread::create([this, s = settings_[size_t(current_)], model = bridge_->sharedModel()] {
    try {
      pairRun_ = runLessonSetting(s, model, &cancelPair_);
    } catch (const BenchCancelled&) {
      pairError_ = tr("cancelled");
    } catch (const std::exception& e) {
      pairError_ = QString::fromUtf8(e.what());
    }
  });
  pairThread_->setObjectName(QStringLiteral("lesson P/D run"));
  connect(pairThread_, &QThread::finished, this, &LessonsPanel::onPairFinished);
  pairThread_->start(QThread::LowPriority);
}

void LessonsPanel::onPairFinished() {
  pairThread_->wait();
  delete pairThread_;
  pairThread_ = nullptr;
  if (!running()) return;  // stopped meanwhile: stop() said so
  if (!pairError_.isEmpty()) {
    const QString error = pairError_;
    stop();
    status_->setText(tr("The P/D run failed: %1").arg(error));
    return;
  }
  RunData data;  // the decode instance's steps, every request's timeline (P's part included)
  data.modelDir = bridge_->model() ? bridge_->model()->dir : std::string();
  data.device = pairRun_.report.simulatedDevice;
  data.initialConfig = pairRun_.setting.pd->decode;
  data.hasWorkload = true;
  data.workload = pairRun_.setting.workload;
  for (const BenchRequestRecord& q : pairRun_.report.requests) data.requests.push_back(q.timeline);
  std::sort(data.requests.begin(), data.requests.end(), [](const RequestTimeline& a, const RequestTimeline& b) {
    return a.finishTime.value_or(0) < b.finishTime.value_or(0);
  });
  data.steps.assign(pairRun_.steps.begin(), pairRun_.steps.end());
  keepRun(std::move(pairRun_), data);
}

// One setting done: its run is kept and shown in the Runs view; then the next setting,
// or the finding after the last.
void LessonsPanel::keepRun(LessonRun r, const RunData& data) {
  const QString label = shown(r.setting.label);
  runs_.push_back(std::move(r));
  runsPanel_->setRun(current_ % 2, data, label);
  if (++current_ < int(settings_.size())) {
    QTimer::singleShot(0, this, &LessonsPanel::startSetting);  // after the load panel's own handlers
    return;
  }
  const QString text = shown(lessons().at(size_t(lesson_->currentIndex())).finding(runs_));
  finding_->setPlainText(text);
  status_->setText(tr("Done: %n run(s). The Runs view compares the last two.", "", int(runs_.size())));
  bridge_->setConfig(before_);  // the next lesson starts from the user's knobs, not this one's last
  dropBackground();
  current_ = -1;
  run_->setEnabled(true);
  stop_->setEnabled(false);
  lesson_->setEnabled(true);
  emit finished(text);
}

// The load generator's form has no row for a lesson's steady decodes: they end with it.
void LessonsPanel::dropBackground() {
  WorkloadOptions w = load_->options();
  w.numBackgroundRequests = 0;
  load_->setOptions(w);
}

void LessonsPanel::stop() {
  const bool was = running();
  current_ = -1;
  waitingForLoad_ = false;
  cancelPair_ = true;  // a pair's run ends at its next step; onPairFinished cleans up
  if (was) load_->stop();
  if (was) bridge_->setConfig(before_, true);
  if (was) dropBackground();
  run_->setEnabled(true);
  stop_->setEnabled(false);
  lesson_->setEnabled(true);
  if (was) status_->setText(tr("Stopped after %1 of %n run(s).", "", int(settings_.size())).arg(runs_.size()));
}

}  // namespace lwb::ui
