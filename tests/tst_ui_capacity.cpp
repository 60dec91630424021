// The Capacity view on a simulated engine (Llama-3-8B on an H100): a request_rate sweep
// runs off the GUI thread on fresh engines and leaves the live engine alone; the curves
// hold one point per value with the rows' p99s; the saturation mark stands at the largest
// rate whose row kept 90 % of the requests within the SLOs; a second sweep after a knob
// change overlays the first as B and the words say what the setting bought; a saved sweep
// reopens equal; Cancel stops a sweep and restores what was shown; bad input is refused
// naming the field and value, and so is a value the engine refuses; Ctrl+Shift+C shows the dock. A short sweep of the real CPU
// engine on the bundled model says nothing of simulation. Saves a screenshot.
#include <QDockWidget>
#include <QProgressBar>
#include <QtTest>
#include <qcustomplot.h>

#include "common/simulated_window.h"
#include "engine/bench/bench_setting.h"
#include "engine/config/knobs.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/bridge/sweep_export.h"
#include "ui/charts/capacity_chart.h"
#include "ui/main_window.h"
#include "ui/panels/capacity_panel.h"
#include "ui/theme.h"

using namespace lwb;
using namespace lwb::ui;

namespace {
constexpr int kTimeoutMs = 120000;
const QString kRates = QStringLiteral("4,16,64,256");

QString bannerOf(QCustomPlot* plot) {
  for (int i = 0; i < plot->itemCount(); ++i)
    if (plot->item(i)->objectName() == QLatin1String("simulatedBanner"))
      return qobject_cast<QCPItemText*>(plot->item(i))->text();
  return {};
}

// The test's own reading of the rule: the largest rate with >= 90 % of the completed
// requests within every SLO.
std::optional<double> expectedSaturation(const Sweep& s) {
  std::optional<double> best;
  for (const SweepPoint& p : s.points)
    if (p.completed > 0 && p.goodputFraction.value_or(0) >= 0.9 && (!best || *sweepRate(p.value) > *best))
      best = *sweepRate(p.value);
  return best;
}

WorkloadOptions smallWorkload(int numPrompts) {
  WorkloadOptions w;
  w.numPrompts = numPrompts;
  w.inputLen = 512;
  w.rangeRatio = 0.5;
  w.outputLen = 64;
  w.sharedPrefixLen = 0;
  w.ignoreEos = true;
  w.seed = 7;
  return w;
}
}  // namespace

class TestUiCapacity : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    window_ = test::openSimulatedWindow(kTimeoutMs);  // an H100: sim_hardware's default
    QVERIFY(window_);
    panel_ = window_->capacity();
  }
  void cleanupTestCase() { window_.reset(); }

  void shortcutShowsTheDock() {
    auto* dock = window_->findChild<QDockWidget*>(QStringLiteral("dock.capacity"));
    auto* batch = window_->findChild<QDockWidget*>(QStringLiteral("dock.batch"));
    QVERIFY(dock && window_->tabifiedDockWidgets(batch).contains(dock));
    QVERIFY(dock->visibleRegion().isEmpty() && !batch->visibleRegion().isEmpty());  // behind the batch's tab
    QAction* show = nullptr;
    for (QAction* a : window_->findChildren<QAction*>())
      if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C)) show = a;
    QVERIFY(show && !show->toolTip().isEmpty());
    show->trigger();
    QTRY_VERIFY(!dock->visibleRegion().isEmpty() && batch->visibleRegion().isEmpty());
  }

  void badInputIsRefusedNamingIt() {
    panel_->setWorkload(smallWorkload(200));
    panel_->setGoodput("ttft:500 tpot:50");
    panel_->setSweptKey(QString::fromStdString(std::string(bench_key::kRequestRate)));
    panel_->setValues("4,fast");
    QVERIFY(!panel_->start());
    QVERIFY2(panel_->errorText().startsWith("request_rate = fast: "), qPrintable(panel_->errorText()));
    panel_->setValues("4,,8");
    QVERIFY(!panel_->start());
    QVERIFY2(panel_->errorText().contains("an empty value"), qPrintable(panel_->errorText()));
    const QString seqs = QString::fromStdString(std::string(knob::kMaxNumSeqs));
    panel_->setSweptKey(seqs);
    panel_->setValues("64,-3");
    QVERIFY(!panel_->start());
    QVERIFY2(panel_->errorText().startsWith(seqs + " = -3: "), qPrintable(panel_->errorText()));
    panel_->setSweptKey(QString::fromStdString(std::string(bench_key::kRequestRate)));
    panel_->setValues(kRates);
    panel_->setGoodput("ttft:500 itl:50");
    QVERIFY(!panel_->start());
    QVERIFY2(panel_->errorText().startsWith("goodput itl:50: unknown metric 'itl'"), qPrintable(panel_->errorText()));
    QVERIFY(!panel_->running() && !panel_->sweep(0) && !panel_->sweep(1));
  }

  // One point per value, each the row's p99; the mark where the rule puts it; SIMULATED.
  void sweepDrawsTheCurveAndTheKnee() {
    const auto loop = window_->bridge()->sharedLoop();
    const int64_t liveTokens = window_->bridge()->snapshot()->totals.generatedTokens;
    panel_->setGoodput("ttft:500 tpot:50");
    QSignalSpy done(panel_, &CapacityPanel::sweepDone);
    QVERIFY2(panel_->start(), qPrintable(panel_->errorText()));
    QVERIFY(panel_->running());
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kTimeoutMs);
    QVERIFY2(panel_->errorText().isEmpty(), qPrintable(panel_->errorText()));
    QCOMPARE(panel_->progressBar()->value(), panel_->progressBar()->maximum());

    const Sweep& s = *panel_->sweep(0);
    QVERIFY(s.simulated());
    QCOMPARE(int(s.points.size()), 4);
    CapacityChart* chart = panel_->chart();
    for (auto series : {CapacityChart::Series::Ttft, CapacityChart::Series::Itl, CapacityChart::Series::Goodput})
      QCOMPARE(chart->graph(0, series)->dataCount(), 4);
    QVERIFY(!chart->graph(1, CapacityChart::Series::Ttft));
    for (size_t i = 0; i < s.points.size(); ++i) {
      const SweepPoint& p = s.points[i];
      QCOMPARE(p.completed, 200);
      const double x = *sweepRate(p.value);
      QCOMPARE(chart->xOf(p.value), x);
      auto at = [&](CapacityChart::Series series) { return chart->graph(0, series)->data()->findBegin(x, false)->value; };
      QCOMPARE(at(CapacityChart::Series::Ttft), p.ttft.p99);
      QCOMPARE(at(CapacityChart::Series::Itl), p.itl.p99);
      QCOMPARE(at(CapacityChart::Series::Goodput), p.requestGoodput.value());
    }
    // The workload is chosen so that the knee falls inside the swept range.
    const auto knee = expectedSaturation(s);
    QVERIFY2(knee && *knee > 4 && *knee < 256, qPrintable(panel_->lesson()));
    QCOMPARE(chart->saturationX(0).value(), *knee);
    QVERIFY2(panel_->lesson().contains(QStringLiteral("Saturation: up to %1 req/s").arg(*knee)), qPrintable(panel_->lesson()));
    QVERIFY2(panel_->lesson().contains("breaks first"), qPrintable(panel_->lesson()));
    const QString banner = bannerOf(chart->plot());
    QVERIFY2(banner.contains("SIMULATED") && banner.contains("H100") && banner.contains("llama-3-8b"), qPrintable(banner));
    // The live engine was left alone: same loop, no tokens of the sweep.
    QCOMPARE(window_->bridge()->sharedLoop(), loop);
    QCOMPARE(window_->bridge()->snapshot()->totals.generatedTokens, liveTokens);
  }

  // A knob change, a second sweep: the first becomes B and the words compare them.
  void secondSweepOverlaysTheFirst() {
    const Sweep first = *panel_->sweep(0);
    EngineConfig c = window_->bridge()->config();
    c.maxNumBatchedTokens = 2048;
    window_->bridge()->setConfig(c);
    QTRY_COMPARE(window_->bridge()->config().maxNumBatchedTokens, 2048);
    QSignalSpy done(panel_, &CapacityPanel::sweepDone);
    QVERIFY(panel_->start());
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kTimeoutMs);
    QVERIFY(panel_->sweep(1) && panel_->sweep(1)->points == first.points);
    QCOMPARE(panel_->chart()->graph(1, CapacityChart::Series::Ttft)->dataCount(), 4);
    QCOMPARE(panel_->chart()->graph(0, CapacityChart::Series::Ttft)->dataCount(), 4);
    const QString knob = QString::fromStdString(std::string(knob::kMaxNumBatchedTokens));
    QVERIFY2(panel_->lesson().contains(knob + " 2048 (A) instead of 8192 (B)"), qPrintable(panel_->lesson()));
    const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
    QDir().mkpath(dir);
    auto* dock = window_->findChild<QDockWidget*>(QStringLiteral("dock.capacity"));
    QVERIFY(window_->grab().save(dir + "/window-capacity.png", "PNG"));
    dock->setFloating(true);  // the view as a user reads it, at a comfortable size
    dock->resize(1200, 760);
    QTest::qWait(300);  // queued replots
    QVERIFY(dock->grab().save(dir + "/capacity.png", "PNG"));
    dock->setFloating(false);
  }

  void savedSweepReopensEqual() {
    QTemporaryDir tmp;
    const QString path = tmp.filePath("sweep.json");
    QCOMPARE(panel_->saveSweep(0, path), QString());
    QVERIFY(isSweepFile(path));
    const Sweep saved = *panel_->sweep(0);
    QCOMPARE(panel_->openSweep(1, path), QString());
    const Sweep& reopened = *panel_->sweep(1);
    QCOMPARE(reopened.key, saved.key);
    QVERIFY(reopened.points == saved.points);
    QCOMPARE(reopened.goodput->describe(), saved.goodput->describe());
    QCOMPARE(reopened.simHardware, saved.simHardware);
    QCOMPARE(reopened.saturation(), saved.saturation());
    QCOMPARE(panel_->chart()->saturationX(1), panel_->chart()->saturationX(0));
    // Not a sweep: an error naming the file, and B stays as it was.
    const QString bad = tmp.filePath("run.json");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"requests\": []}");
    f.close();
    QVERIFY(!isSweepFile(bad));
    const QString err = panel_->openSweep(1, bad);
    QVERIFY2(err.contains(bad) && err.contains("\"sweep\""), qPrintable(err));
    QVERIFY(panel_->sweep(1)->points == saved.points);
  }

  // A value the range allows but the engine refuses (Llama-3-8B's weights do not fit in a
  // tenth of an H100): the sweep stops there, naming it, and keeps the values before it.
  void engineErrorEndsTheSweepNamingTheValue() {
    const QString util = QString::fromStdString(std::string(knob::kGpuMemoryUtilization));
    panel_->setSweptKey(util);
    panel_->setValues("0.9,0.1,0.5");
    panel_->setWorkload(smallWorkload(50));
    QSignalSpy done(panel_, &CapacityPanel::sweepDone);
    QVERIFY2(panel_->start(), qPrintable(panel_->errorText()));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kTimeoutMs);
    QVERIFY2(panel_->errorText().startsWith(util + " = 0.1: "), qPrintable(panel_->errorText()));
    QCOMPARE(panel_->status(), panel_->errorText());
    QCOMPARE(int(panel_->sweep(0)->points.size()), 1);
    QCOMPARE(panel_->sweep(0)->key, util.toStdString());
    QVERIFY(!panel_->chart()->saturationX(0));  // a knob sweep has no saturation point
    panel_->setSweptKey(QString::fromStdString(std::string(bench_key::kRequestRate)));
  }

  // A sweep far too long to finish: Cancel ends it between steps; with no value finished
  // A and B are what they were.
  void cancelStopsTheSweep() {
    const auto a = panel_->sweep(0), b = panel_->sweep(1);
    WorkloadOptions w = smallWorkload(200000);
    w.inputLen = 128;
    panel_->setWorkload(w);
    panel_->setValues("4,8");
    QSignalSpy done(panel_, &CapacityPanel::sweepDone);
    QVERIFY(panel_->start());
    QTRY_VERIFY_WITH_TIMEOUT(panel_->progressBar()->value() > 0, kTimeoutMs);
    panel_->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kTimeoutMs);
    QVERIFY(!panel_->running());
    QVERIFY2(panel_->status().startsWith("Cancelled after 0 of 2"), qPrintable(panel_->status()));
    QVERIFY(panel_->errorText().isEmpty());
    QVERIFY(panel_->sweep(0)->points == a->points);
    QVERIFY(panel_->sweep(1)->points == b->points);
  }

  // The CPU engine: a few short requests per value, on fresh engines beside the live one.
  void realEngineSweepIsNotSimulated() {
    WindowOptions options;
    options.modelDir = QString::fromStdString(defaultModelDir());
    options.knobs.executor.backend = "cpu";
    options.knobs.executor.numThreads = 1;
    options.restoreLayout = false;
    MainWindow window(options);
    QTRY_VERIFY_WITH_TIMEOUT(window.bridge()->attached(), kTimeoutMs);
    CapacityPanel* panel = window.capacity();
    QVERIFY(!window.simulated());
    WorkloadOptions w = smallWorkload(6);
    w.inputLen = 16;
    w.outputLen = 8;
    panel->setWorkload(w);
    panel->setValues("8,inf");
    panel->setGoodput("ttft:60000");
    QSignalSpy done(panel, &CapacityPanel::sweepDone);
    QVERIFY2(panel->start(), qPrintable(panel->errorText()));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kTimeoutMs);
    QVERIFY2(panel->errorText().isEmpty(), qPrintable(panel->errorText()));
    const Sweep& s = *panel->sweep(0);
    QCOMPARE(int(s.points.size()), 2);
    QVERIFY(!s.simulated() && QString::fromStdString(s.device).startsWith("cpu"));
    QCOMPARE(s.points[1].value, std::string("inf"));
    QCOMPARE(panel->chart()->saturationX(0).value(), panel->chart()->xOf("inf"));  // every request within a minute
    QVERIFY(bannerOf(panel->chart()->plot()).isEmpty());
  }

 private:
  std::unique_ptr<MainWindow> window_;
  CapacityPanel* panel_ = nullptr;
};

QTEST_MAIN(TestUiCapacity)
#include "tst_ui_capacity.moc"
