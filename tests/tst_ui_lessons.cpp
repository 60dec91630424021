// The Lessons dock on the window's own engine (a simulated H100, as fast as possible):
// a lesson applies each setting's knobs, runs its workload through the load generator
// (so every view shows it), lands each run in the Runs view and ends with the finding
// written from the runs; Stop ends it between runs.
#include <QDockWidget>
#include <QtTest>

#include "common/simulated_window.h"
#include "engine/engine_loop.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/main_window.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/runs_panel.h"
#include "ui/theme.h"

using namespace lwb;
using namespace lwb::ui;

class TestUiLessons : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    window_ = test::openSimulatedWindow();
    QVERIFY(window_);
    window_->bridge()->loop()->setSimulationSpeed(0);
  }
  void cleanupTestCase() { window_.reset(); }

  void lessonRunsOnTheWindowsEngine() {
    LessonsPanel* panel = window_->lessons();
    panel->selectLesson("kv-cache");
    QVERIFY(panel->start(0.2));
    QVERIFY(panel->running());
    QTRY_VERIFY_WITH_TIMEOUT(!panel->running(), 120000);
    QCOMPARE(panel->runs().size(), size_t(2));
    // The second run had the small pool: its knob reached the engine.
    QVERIFY(panel->runs()[1].numKvBlocks < panel->runs()[0].numKvBlocks);
    QCOMPARE(panel->runs()[1].numKvBlocks, panel->runs()[1].setting.knobs.numGpuBlocksOverride);
    for (const LessonRun& r : panel->runs()) QCOMPARE(r.report.completed, r.setting.workload.numPrompts);
    QVERIFY(panel->runs()[1].report.numPreemptions > 0);  // the small pool preempted
    QVERIFY2(panel->finding().contains(QString("preempted %1 times").arg(panel->runs()[1].report.numPreemptions)),
             qPrintable(panel->finding()));
    QVERIFY(!window_->runs()->run(1).requests.empty());  // the runs are in the Runs view
    const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
    QDir().mkpath(dir);
    auto* dock = window_->findChild<QDockWidget*>("dock.lessons");
    dock->raise();
    QVERIFY(window_->grab().save(dir + "/window-lesson.png", "PNG"));
  }

  void stopEndsTheLesson() {
    LessonsPanel* panel = window_->lessons();
    panel->selectLesson("batching");
    QVERIFY(panel->start(0.5));
    panel->stop();
    QVERIFY(!panel->running());
    QTRY_VERIFY_WITH_TIMEOUT(!window_->load()->running(), 60000);
    QVERIFY(panel->finding().isEmpty());
  }

 private:
  std::unique_ptr<MainWindow> window_;
};

QTEST_MAIN(TestUiLessons)
#include "tst_ui_lessons.moc"
