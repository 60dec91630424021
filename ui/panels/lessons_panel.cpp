#include "ui/panels/lessons_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include "engine/bench/goodput.h"
#include "engine/engine_loop.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/bridge/run_data.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/runs_panel.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

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
  question_->setText(qs(l.question));
}

void LessonsPanel::selectLesson(const QString& name) {
  if (const int i = lesson_->findData(name); i >= 0) lesson_->setCurrentIndex(i);
}

QString LessonsPanel::finding() const { return finding_->toPlainText(); }

bool LessonsPanel::start(double scale) {
  if (running()) return false;
  if (!bridge_->attached()) {
    status_->setText(tr("No engine is running yet."));
    return false;
  }
  const Lesson& l = lessons().at(size_t(lesson_->currentIndex()));
  settings_ = l.settings(bridge_->config(), scale);
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
  status_->setText(tr("Run %1 of %2: %3").arg(current_ + 1).arg(settings_.size()).arg(qs(s.label)));
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
  runs_.push_back(std::move(r));
  runsPanel_->setRun(current_ % 2, bridge_->run(), qs(s.label));
  if (++current_ < int(settings_.size())) {
    QTimer::singleShot(0, this, &LessonsPanel::startSetting);  // after the load panel's own handlers
    return;
  }
  const QString text = qs(lessons().at(size_t(lesson_->currentIndex())).finding(runs_));
  finding_->setPlainText(text);
  status_->setText(tr("Done: %n run(s). The Runs view compares the last two.", "", int(runs_.size())));
  current_ = -1;
  run_->setEnabled(true);
  stop_->setEnabled(false);
  lesson_->setEnabled(true);
  emit finished(text);
}

void LessonsPanel::stop() {
  const bool was = running();
  current_ = -1;
  waitingForLoad_ = false;
  if (was) load_->stop();
  run_->setEnabled(true);
  stop_->setEnabled(false);
  lesson_->setEnabled(true);
  if (was) status_->setText(tr("Stopped after %1 of %n run(s).", "", int(settings_.size())).arg(runs_.size()));
}

}  // namespace lwb::ui
