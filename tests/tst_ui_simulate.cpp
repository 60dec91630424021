// The window on a simulated engine (--backend sim): every chart, the KV map, the status
// bar and the title say SIMULATED with the hardware and the model; chat is off; the load
// generator plans its workload on the virtual clock and every view fills; File ▸
// Simulate…'s preview sizes the KV pool as vLLM would, or says why the model does not fit.
#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>
#include <QtTest>

#include "common/simulated_window.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/charts/batch_chart.h"
#include "ui/main_window.h"
#include "ui/panels/chat_panel.h"
#include "ui/panels/kv_panel.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/simulate_dialog.h"
#include "ui/theme.h"

using namespace lwb;
using namespace lwb::ui;

namespace {
constexpr int kTimeoutMs = 60000;
const QString kShapes = QStringLiteral(LWB_SOURCE_DIR "/resources/sim-models");

QStringList bannersOf(QWidget* root) {
  QStringList out;
  for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) {
    QString text;
    for (int i = 0; i < plot->itemCount(); ++i)
      if (plot->item(i)->objectName() == QLatin1String("simulatedBanner"))
        text = qobject_cast<QCPItemText*>(plot->item(i))->text();
    out << text;
  }
  return out;
}
}  // namespace

class TestUiSimulate : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    window_ = test::openSimulatedWindow(kTimeoutMs);  // an H100: sim_hardware's default
    QVERIFY(window_);
  }
  void cleanupTestCase() { window_.reset(); }

  void everyViewSaysSimulated() {
    QVERIFY(window_->lastError().isEmpty());
    QVERIFY(window_->windowTitle().contains("SIMULATED"));
    const QStringList banners = bannersOf(window_.get());
    QVERIFY(banners.size() >= 5);  // batch, latency, prefix cache, timeline, speculative decoding, ...
    for (const QString& b : banners)
      QVERIFY2(b.contains("SIMULATED") && b.contains("H100") && b.contains("llama-3-8b"), qPrintable(b));
    bool statusSays = false;
    for (QLabel* l : window_->statusBar()->findChildren<QLabel*>()) statusSays |= l->text().contains("SIMULATED");
    QVERIFY(statusSays);
    bool kvSays = false;
    for (QLabel* l : window_->kv()->findChildren<QLabel*>()) kvSays |= l->isVisible() && l->text().contains("SIMULATED");
    QVERIFY(kvSays);
    QVERIFY(!window_->chat()->isEnabled());  // no weights, no text
  }

  // The whole plan goes at once, each request stamped on the virtual clock: as fast as
  // possible, 100 requests at 10 req/s span about ten virtual seconds.
  void loadRunsOnTheVirtualClock() {
    window_->bridge()->loop()->setSimulationSpeed(0);
    LoadPanel* load = window_->load();
    WorkloadOptions w;
    w.numPrompts = 100;
    w.requestRate = 10;
    w.inputLen = 256;
    w.outputLen = 32;
    w.seed = 3;
    load->setOptions(w);
    const double t0 = window_->bridge()->snapshot()->time;
    QVERIFY(load->start());
    QTRY_VERIFY_WITH_TIMEOUT(!load->running() && load->numFinished() == 100, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(window_->bridge()->snapshot()->time - t0 > 5, kTimeoutMs);
    QTRY_VERIFY(window_->batch()->plot()->graph(0)->dataCount() > 0);
    QCOMPARE(window_->bridge()->snapshot()->totals.generatedTokens, int64_t(100) * 32);
    // New requests' banners stay: a chart that cleared still says it.
    for (const QString& b : bannersOf(window_.get())) QVERIFY(b.contains("SIMULATED"));
    const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
    QDir().mkpath(dir);
    QVERIFY(window_->grab().save(dir + "/window-simulated.png", "PNG"));
  }

  void simulateDialogPreviewsTheKvPool() {
    SimulateDialog dialog(EngineConfig{});
    dialog.setHardware("h100-sxm");
    dialog.setModelPath(kShapes + "/llama-3-70b");
    dialog.setTensorParallelSize(1);
    QVERIFY(!dialog.acceptable());
    QVERIFY2(dialog.preview().contains("does not fit"), qPrintable(dialog.preview()));
    dialog.setTensorParallelSize(8);
    QVERIFY2(dialog.acceptable() && dialog.preview().contains("KV blocks"), qPrintable(dialog.preview()));
    dialog.setTensorParallelSize(3);
    QVERIFY2(!dialog.acceptable() && dialog.preview().contains("num_attention_heads"), qPrintable(dialog.preview()));
    dialog.setTensorParallelSize(4);
    const EngineConfig c = dialog.config();
    QCOMPARE(c.executor.backend, std::string("sim"));
    QCOMPARE(c.executor.tensorParallelSize, 4);
    QCOMPARE(c.executor.simHardware, std::string("h100-sxm"));
  }

 private:
  std::unique_ptr<MainWindow> window_;
};

QTEST_MAIN(TestUiSimulate)
#include "tst_ui_simulate.moc"
