// The window's prefill/decode layout: a P/D pair (Engine ▸ Prefill/decode
// disaggregation…, or --pd) shows two batch charts and two KV maps, each fed with its own
// instance's steps and pool; the request timeline draws each request's KV transfer; the
// comparison with the colocated design lands two runs in Runs: compare. On the simulator
// (two simulated H100s) and, when the default model is built, on the CPU.
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QtTest>

#include "common/cli_runner.h"
#include "common/simulated_window.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/charts/batch_chart.h"
#include "ui/charts/timeline_chart.h"
#include "ui/main_window.h"
#include "ui/panels/chat_conversation.h"
#include "ui/panels/chat_panel.h"
#include "ui/panels/kv_block_map.h"
#include "ui/panels/kv_panel.h"
#include "ui/panels/latency_panel.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/pd_panel.h"
#include "ui/panels/runs_panel.h"

using namespace lwb;
using namespace lwb::ui;

namespace {

constexpr int kTimeoutMs = 60000;

WorkloadOptions smallLoad(int inputLen) {
  WorkloadOptions w;
  w.numPrompts = 12;
  w.requestRate = 20;
  w.inputLen = inputLen;
  w.outputLen = 8;
  w.ignoreEos = true;
  w.seed = 5;
  return w;
}

// Runs `w` through the load generator and checks the P/D views: each side's chart and
// map got its own instance's data, and finished requests show their transfer.
void checkPdViews(MainWindow& window, const WorkloadOptions& w) {
  QVERIFY(window.disaggregated());
  PdPanel* pd = window.pd();
  QVERIFY(pd->compareButton()->isEnabled());
  window.load()->setOptions(w);
  QVERIFY(window.load()->start());
  QTRY_VERIFY_WITH_TIMEOUT(!window.load()->running() && window.load()->numFinished() == w.numPrompts, kTimeoutMs);
  QTRY_VERIFY(pd->batch(PdPanel::Prefill)->numPoints() > 0);
  QTRY_VERIFY(pd->batch(PdPanel::Decode)->numPoints() > 0);
  // P's steps are prompts only; D's decode: the two charts do not show the same steps.
  const auto& pTokens = *pd->batch(PdPanel::Prefill)->plot()->graph(0)->data();
  double pDecode = 0;
  for (auto it = pTokens.constBegin(); it != pTokens.constEnd(); ++it) pDecode += it->value;
  QCOMPARE(pDecode, 0.0);  // graph 0 = decode tokens: none on the prefill instance
  QTRY_VERIFY(pd->kv(PdPanel::Prefill)->map()->numBlocks() > 0);
  QTRY_VERIFY(pd->kv(PdPanel::Decode)->map()->numBlocks() > 0);
  const auto snap = window.bridge()->snapshot();
  QCOMPARE(pd->kv(PdPanel::Prefill)->map()->numBlocks(), int(snap->prefillKvBlocks.size()));
  QCOMPARE(pd->kv(PdPanel::Decode)->map()->numBlocks(), int(snap->kvBlocks.size()));
  TimelineChart* timeline = window.latency()->timeline();
  QTRY_VERIFY(timeline->numTransferSegments() > 0);
  QVERIFY(timeline->rowToolTip(0).contains("KV transfer"));
}

}  // namespace

class TestUiPd : public QObject {
  Q_OBJECT
 private slots:
  // Two simulated H100s (Llama-3-8B): the pair, its views, then the comparison with two
  // colocated H100s, both runs in Runs: compare.
  void simulatedPairShowsBothInstancesAndCompares() {
    auto window = test::openSimulatedWindow(kTimeoutMs);
    QVERIFY(window);
    QVERIFY(!window->disaggregated());
    QVERIFY(!window->pd()->compareButton()->isEnabled());
    QVERIFY(!window->startPd(2, 1));  // the window shows one simulated GPU of each
    QVERIFY(window->lastError().contains("1:1"));
    QVERIFY(window->startPd(1, 1));
    QTRY_VERIFY_WITH_TIMEOUT(window->disaggregated(), kTimeoutMs);
    window->bridge()->loop()->setSimulationSpeed(0);
    checkPdViews(*window, smallLoad(600));
    bool simulatedNote = false;
    for (QLabel* l : window->pd()->kv(PdPanel::Prefill)->findChildren<QLabel*>())
      simulatedNote |= l->text().contains("SIMULATED");
    QVERIFY(simulatedNote);

    QVERIFY(window->compareWithColocated());
    QTRY_VERIFY_WITH_TIMEOUT(window->pd()->compareButton()->isEnabled(), kTimeoutMs);
    const RunData& a = window->runs()->run(0);
    const RunData& b = window->runs()->run(1);
    QCOMPARE(int(a.requests.size()), 12);
    QCOMPARE(int(b.requests.size()), 12);
    QVERIFY(a.requests.front().kvTransferBytes > 0);
    QCOMPARE(b.requests.front().kvTransferBytes, int64_t(0));
    QVERIFY(b.initialConfig.enableChunkedPrefill);
    QVERIFY2(window->pd()->status()->text().contains("colocated"), qPrintable(window->pd()->status()->text()));

    QVERIFY(window->startPd(0, 0));  // back to one colocated engine
    QTRY_VERIFY_WITH_TIMEOUT(window->bridge()->attached() && !window->disaggregated() && window->simulated(),
                             kTimeoutMs);
    QVERIFY(!window->pd()->compareButton()->isEnabled());
  }

  // --pd 1:1 on the CPU with the default model: the prefill instance steps on its own
  // thread, and its steps and pool still reach the left-hand views.
  void cpuPairFromTheCommandLine() {
    const QString model = test::defaultModelInBuildTree();
    if (model.isEmpty()) QSKIP("the default model (austen-chat-11m) is not in the build tree yet");
    QStandardPaths::setTestModeEnabled(true);
    WindowOptions options;
    options.modelDir = model;
    options.knobs.executor.backend = "cpu";
    options.restoreLayout = false;
    options.pdPrefill = 1;
    options.pdDecode = 1;
    MainWindow window(options);
    window.resize(1400, 900);
    window.show();
    QTRY_VERIFY_WITH_TIMEOUT(window.bridge()->attached() && window.disaggregated(), kTimeoutMs);
    checkPdViews(window, smallLoad(40));

    // Chat stays on: the decode instance streams the answer.
    ChatConversation* chat = window.chat()->current();
    QVERIFY(window.chat()->isEnabled() && chat);
    chat->setInput(QStringLiteral("Who is Emma?"));
    QVERIFY(chat->send());
    QTRY_VERIFY_WITH_TIMEOUT(!chat->busy(), kTimeoutMs);
    const ChatTurn& answer = chat->messages().back();
    QVERIFY(answer.role == ChatTurn::Role::Assistant);
    QVERIFY2(!answer.content.empty() && !answer.stats.empty(), answer.content.c_str());
  }
};

QTEST_MAIN(TestUiPd)
#include "tst_ui_pd.moc"
