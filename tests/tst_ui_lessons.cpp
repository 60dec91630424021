// The Lessons dock on the window's own engine (a simulated H100, as fast as possible):
// every lesson applies each setting's knobs, runs its workload through the load
// generator (so every view shows it; a P/D setting on a pair of its own), lands each run
// in the Runs view and ends with the finding written from the runs, with a screenshot
// per lesson in the test's artefacts. Speculative decoding, which the simulator refuses
// with a reason, runs in a window on the CPU engine. Stop ends a lesson between runs.
#include <QDockWidget>
#include <QTranslator>
#include <QtTest>

#include "common/simulated_window.h"
#include "engine/config/config_json.h"
#include "engine/config/knobs.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/main_window.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/runs_panel.h"
#include "ui/theme.h"

using namespace lwb;
using namespace lwb::ui;

namespace {

constexpr double kScale = 0.1;  // seconds per lesson on the simulator
constexpr int kTimeoutMs = 180000;

QString artifactsDir() {
  const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
  QDir().mkpath(dir);
  return dir;
}

// Runs `name` to its end in `window`, checks its runs and finding, saves a screenshot.
void runToCompletion(MainWindow& window, const QString& name, double scale = kScale) {
  LessonsPanel* panel = window.lessons();
  const EngineConfig before = window.bridge()->config();
  panel->selectLesson(name);
  QVERIFY2(panel->start(scale), qPrintable(panel->status() + " " + panel->finding()));
  QVERIFY(panel->running());
  QTRY_VERIFY_WITH_TIMEOUT(!panel->running(), kTimeoutMs);
  const Lesson& l = findLesson(name.toStdString());
  QCOMPARE(panel->runs().size(), l.settings(before, scale).size());
  for (const LessonRun& r : panel->runs())
    QVERIFY2(r.report.completed == r.setting.workload.numPrompts + r.setting.workload.numBackgroundRequests,
             qPrintable(name + ": " + lessonText(r.setting.label)));
  QVERIFY(!panel->finding().isEmpty());
  QCOMPARE(panel->finding(), lessonText(l.finding(panel->runs())));
  for (int slot = 0; slot < std::min<int>(2, int(panel->runs().size())); ++slot)
    QVERIFY2(!window.runs()->run(slot).requests.empty(), qPrintable(name));  // the runs are in the Runs view
  QTRY_VERIFY(configToJson(window.bridge()->config()) == configToJson(before));  // the lesson gave the knobs back
  auto* dock = window.findChild<QDockWidget*>("dock.lessons");
  dock->raise();
  QVERIFY(window.grab().save(artifactsDir() + "/window-lesson-" + name + ".png", "PNG"));
}

// Every "Lessons" template as «text»: shows which pieces the window sent through Qt's
// translation (the numbers and knob names stay outside them).
class MarkingTranslator : public QTranslator {
 public:
  QString translate(const char* context, const char* source, const char*, int) const override {
    return QByteArray(context) == "Lessons" ? QString::fromUtf8("«%1»").arg(QString::fromUtf8(source)) : QString();
  }
  bool isEmpty() const override { return false; }
};

}  // namespace

class TestUiLessons : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    window_ = test::openSimulatedWindow();
    QVERIFY(window_);
    window_->bridge()->loop()->setSimulationSpeed(0);
  }
  void cleanupTestCase() { window_.reset(); }

  void kvCacheLessonReachesTheEngine() {
    runToCompletion(*window_, "kv-cache", 0.2);  // enough decode growth to preempt
    LessonsPanel* panel = window_->lessons();
    // The second run had the small pool: its knob reached the engine.
    QVERIFY(panel->runs()[1].numKvBlocks < panel->runs()[0].numKvBlocks);
    QCOMPARE(panel->runs()[1].numKvBlocks, panel->runs()[1].setting.knobs.numGpuBlocksOverride);
    QVERIFY(panel->runs()[1].report.numPreemptions > 0);  // the small pool preempted
    QVERIFY2(panel->finding().contains(QString("preempted %1 times").arg(panel->runs()[1].report.numPreemptions)),
             qPrintable(panel->finding()));
  }

  void everyLessonRunsInTheWindow_data() {
    QTest::addColumn<QString>("name");
    for (const Lesson& l : lessons())
      if (l.name != "kv-cache" && l.name != "pd-disaggregation" && unsupportedReason(l, window_->bridge()->config()).empty())
        QTest::newRow(l.name.c_str()) << QString::fromStdString(l.name);
  }
  void everyLessonRunsInTheWindow() {
    QFETCH(QString, name);
    runToCompletion(*window_, name);
  }

  // The pair's run is the P/D lesson's second: a PdEngine of its own, on the simulator.
  void pdRunIsThePairs() {
    runToCompletion(*window_, "pd-disaggregation");
    const std::vector<LessonRun>& runs = window_->lessons()->runs();
    QVERIFY(!runs[0].setting.pd && runs[1].setting.pd);
    QVERIFY(runs[1].report.simulated());
    QVERIFY(window_->lessons()->finding().contains("twice the hardware"));
  }

  // The simulator does not simulate speculation: the lesson says so and runs nothing;
  // on the CPU engine it runs.
  void speculativeDecodingNeedsARealBackend() {
    LessonsPanel* panel = window_->lessons();
    panel->selectLesson("speculative-decoding");
    QVERIFY(!panel->start(kScale));
    QVERIFY(!panel->running());
    QVERIFY2(panel->finding().contains("does not simulate speculative decoding"), qPrintable(panel->finding()));

    QStandardPaths::setTestModeEnabled(true);
    WindowOptions options;
    options.modelDir = QString::fromStdString(defaultModelDir());
    options.knobs.executor.backend = "cpu";
    options.knobs.executor.numThreads = 1;
    options.restoreLayout = false;
    MainWindow cpu(options);
    cpu.resize(1400, 900);
    cpu.show();
    QTRY_VERIFY_WITH_TIMEOUT(cpu.bridge()->attached(), kTimeoutMs);
    runToCompletion(cpu, "speculative-decoding");
    QVERIFY2(cpu.lessons()->runs()[1].report.specDecode.numDraftTokens > 0, "the n-gram drafts were verified");
  }

  // --demo opens on the first lesson, raised, and runs it; a light load follows.
  void demoOpensOnTheFirstLesson() {
    WindowOptions options;
    options.modelDir = QStringLiteral(LWB_SOURCE_DIR "/resources/sim-models/llama-3-8b");
    options.knobs.executor.backend = "sim";
    options.restoreLayout = false;
    options.demo = true;
    MainWindow demo(options);
    demo.resize(1400, 900);
    demo.show();
    for (QAction* a : demo.findChildren<QAction*>())  // Engine > Simulation speed > As fast as possible
      if (a->isCheckable() && a->data() == QVariant(0.0)) a->trigger();
    // The endless demo load is stopped as soon as it starts (queued after the window's own
    // handler of the same signal): at full speed it would flood the test.
    bool loadStarted = false;
    connect(demo.lessons(), &LessonsPanel::finished, &demo, [&] {
      loadStarted = demo.load()->running();
      demo.load()->stop();
    }, Qt::QueuedConnection);
    QTRY_VERIFY_WITH_TIMEOUT(demo.bridge()->attached() && demo.simulated(), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(demo.lessons()->running() || !demo.lessons()->finding().isEmpty(), 10000);
    QVERIFY(demo.findChild<QDockWidget*>("dock.lessons")->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!demo.lessons()->finding().isEmpty(), kTimeoutMs);
    QCOMPARE(lessonText(demo.lessons()->runs().front().setting.label),
             lessonText(findLesson(lessons().front().name).settings(EngineConfig{}, 1).front().label));
    QTRY_VERIFY(loadStarted);
    QTRY_VERIFY_WITH_TIMEOUT(!demo.load()->running(), 10000);
  }

  // The question, the labels and the finding go through the "Lessons" translations.
  void findingIsTranslated() {
    MarkingTranslator marks;
    QCoreApplication::installTranslator(&marks);
    LessonsPanel* panel = window_->lessons();
    panel->selectLesson("batching");
    QVERIFY(panel->start(kScale));
    QTRY_VERIFY_WITH_TIMEOUT(!panel->running(), kTimeoutMs);
    QCoreApplication::removeTranslator(&marks);
    const QString f = panel->finding();
    const QString seqs = QString::fromStdString(std::string(knob::kMaxNumSeqs));
    QVERIFY2(f.startsWith(QString::fromUtf8("««From ") + seqs + " 1 to " + seqs + " 16, total output throughput «rose from"),
             qPrintable(f));
    QCOMPARE(window_->runs()->run(1).requests.empty(), false);
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
