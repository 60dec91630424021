#pragma once
// Lessons dock: the guided experiments (lessons/lessons.h) on the window's own engine, so
// the views show each run as it happens. For every setting of the chosen lesson the panel
// applies its knobs (aborting what runs), clears the history, starts its workload in the
// load generator and, when the load is done, keeps the run (summarized as bench does) and
// hands it to the Runs view; after the last one it writes the finding from the runs.
#include <QWidget>
#include <vector>

#include "lessons/lessons.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTextBrowser;

namespace lwb::ui {

class EngineBridge;
class LoadPanel;
class RunsPanel;

class LessonsPanel : public QWidget {
  Q_OBJECT
 public:
  LessonsPanel(EngineBridge* bridge, LoadPanel* load, RunsPanel* runs, QWidget* parent = nullptr);

  void selectLesson(const QString& name);
  // Starts the selected lesson at `scale` (1 = full size); false with a message when no
  // engine is attached or one is already running.
  bool start(double scale = 1.0);
  void stop();
  bool running() const { return current_ >= 0; }
  QString finding() const;
  const std::vector<LessonRun>& runs() const { return runs_; }

 signals:
  void resetRequested();  // abort everything and clear the views (Engine ▸ Reset)
  void finished(const QString& finding);

 private:
  void startSetting();
  void onLoadRunning(bool running);
  void describe();

  EngineBridge* bridge_;
  LoadPanel* load_;
  RunsPanel* runsPanel_;
  QComboBox* lesson_;
  QDoubleSpinBox* scale_;
  QPushButton *run_, *stop_;
  QLabel *question_, *status_;
  QTextBrowser* finding_;
  std::vector<LessonSetting> settings_;
  std::vector<LessonRun> runs_;
  int current_ = -1;  // the setting running; -1 when idle
  bool waitingForLoad_ = false;
};

}  // namespace lwb::ui
