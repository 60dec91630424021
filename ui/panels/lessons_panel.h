#pragma once
// Lessons dock: the guided experiments (lessons/lessons.h) on the window's own engine, so
// the views show each run as it happens. For every setting of the chosen lesson the panel
// applies its knobs (aborting what runs), clears the history, starts its workload in the
// load generator and, when the load is done, keeps the run (summarized as bench does) and
// hands it to the Runs view; after the last one it writes the finding from the runs and
// puts back the knobs that were in force before the lesson.
// A setting on a prefill/decode pair cannot run on the window's engine: the panel runs
// it off the GUI thread on a PdEngine of its own (the model and backend in use) and
// hands its run to the Runs view when it ends. Questions, labels and findings are shown
// through the "Lessons" translations (lessons/phrase.h).
#include <QWidget>
#include <atomic>
#include <vector>

#include "lessons/lessons.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTextBrowser;
class QThread;

namespace lwb::ui {

class EngineBridge;
class LoadPanel;
class RunsPanel;
struct RunData;

// A lesson's question, label or finding in the window's language.
QString lessonText(const Phrase& phrase);

class LessonsPanel : public QWidget {
  Q_OBJECT
 public:
  LessonsPanel(EngineBridge* bridge, LoadPanel* load, RunsPanel* runs, QWidget* parent = nullptr);
  ~LessonsPanel() override;  // cancels a pair's run in progress and waits for it

  void selectLesson(const QString& name);
  // Starts the selected lesson at `scale` (1 = full size); false with a message when no
  // engine is attached, one is already running, or the lesson cannot run on this engine
  // (the finding area then says why).
  bool start(double scale = 1.0);
  void stop();
  bool running() const { return current_ >= 0; }
  QString finding() const;
  QString status() const;
  const std::vector<LessonRun>& runs() const { return runs_; }

 signals:
  void resetRequested();  // abort everything and clear the views (Engine ▸ Reset)
  void finished(const QString& finding);

 private:
  void startSetting();
  void startPairRun();
  void onPairFinished();
  void onLoadRunning(bool running);
  void keepRun(LessonRun run, const RunData& data);
  void describe();
  void dropBackground();

  EngineBridge* bridge_;
  LoadPanel* load_;
  RunsPanel* runsPanel_;
  QComboBox* lesson_;
  QDoubleSpinBox* scale_;
  QPushButton *run_, *stop_;
  QLabel *question_, *status_;
  QTextBrowser* finding_;
  EngineConfig before_;  // the knobs in force when the lesson started, restored at its end
  std::vector<LessonSetting> settings_;
  std::vector<LessonRun> runs_;
  int current_ = -1;  // the setting running; -1 when idle
  bool waitingForLoad_ = false;
  // A pair's run: written by its thread before it ends, read on the GUI thread after.
  QThread* pairThread_ = nullptr;
  std::atomic<bool> cancelPair_{false};
  LessonRun pairRun_;
  QString pairError_;
};

}  // namespace lwb::ui
