// The window's prefill/decode layout: a P/D pair (Engine ▸ Prefill/decode
// disaggregation…, or --pd) shows two batch charts and two KV maps, each fed with its own
// instance's steps and pool; the request timeline draws each request's KV transfer; the
// comparison with the colocated design lands two runs in Runs: compare. On the simulator
// (two simulated H100s, then a 2:2 pair whose instances the dock's selectors pick) and,
// when the default model is built, on the CPU.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QtTest>
#include <set>

#include "app/cli/args.h"
#include "app/window_args.h"
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
  QCOMPARE(pd->kv(PdPanel::Prefill)->map()->numBlocks(), int(snap->prefillInstances.at(0).kvBlocks.size()));
  QCOMPARE(pd->kv(PdPanel::Decode)->map()->numBlocks(), int(snap->kvBlocks.size()));
  TimelineChart* timeline = window.latency()->timeline();
  QTRY_VERIFY(timeline->numTransferSegments() > 0);
  QVERIFY(timeline->rowToolTip(0).contains("KV transfer"));
}

std::set<uint64_t> hashes(const std::vector<KvBlockInfo>& blocks) {
  std::set<uint64_t> out;
  for (const KvBlockInfo& b : blocks)
    if (b.hasHash) out.insert(b.hash);
  return out;
}

// `side`'s map follows its selector: instance 1, then instance 0, each the snapshot's pool
// of that instance, and the two pools differ (distinct prompts went to each).
void checkMapFollowsSelection(PdPanel& pd, PdPanel::Side side, const EngineSnapshot& snap) {
  const auto& instances = side == PdPanel::Prefill ? snap.prefillInstances : snap.decodeInstances;
  QCOMPARE(int(instances.size()), 2);
  QVERIFY(hashes(instances[0].kvBlocks) != hashes(instances[1].kvBlocks));
  for (int i : {1, 0}) {
    pd.instanceSelector(side)->setCurrentIndex(i);
    QTRY_VERIFY(hashes(pd.kv(side)->map()->blocks()) == hashes(instances[size_t(i)].kvBlocks));
  }
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
    QVERIFY(!window->startPd(9, 1));  // the dock's selectors offer at most 8 per side
    QVERIFY2(window->lastError().contains("at most 8"), qPrintable(window->lastError()));
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

  // A simulated 2:2 pair: each side's selector lists both instances, the chart plots the
  // selected instance's steps (prefill instance 2's among them), the map its pool, and
  // every request of a burst that spreads over both instances finishes.
  void simulatedTwoByTwoPairSelectsInstances() {
    auto window = test::openSimulatedWindow(kTimeoutMs);
    QVERIFY(window);
    QVERIFY(window->startPd(2, 2));
    QTRY_VERIFY_WITH_TIMEOUT(window->disaggregated(), kTimeoutMs);
    window->bridge()->loop()->setSimulationSpeed(0);
    PdPanel* pd = window->pd();
    for (PdPanel::Side side : {PdPanel::Prefill, PdPanel::Decode}) {
      QTRY_COMPARE(pd->instanceSelector(side)->count(), 2);
      QVERIFY(pd->instanceSelector(side)->isVisibleTo(pd));
      pd->instanceSelector(side)->setCurrentIndex(1);
      QCOMPARE(pd->batch(side)->instance(), 1);
    }
    QVERIFY(pd->instanceSelector(PdPanel::Prefill)->itemText(1).contains("2 of 2"));

    WorkloadOptions w = smallLoad(2000);
    w.numPrompts = 16;
    w.requestRate = 500;  // a burst: prompts queue, so the router spreads them over both
    window->load()->setOptions(w);
    QVERIFY(window->load()->start());
    QTRY_VERIFY_WITH_TIMEOUT(!window->load()->running() && window->load()->numFinished() == w.numPrompts,
                             kTimeoutMs);
    QTRY_VERIFY(pd->batch(PdPanel::Prefill)->numPoints() > 0);  // instance 2's steps only
    QTRY_VERIFY(pd->batch(PdPanel::Decode)->numPoints() > 0);
    QTRY_VERIFY(window->bridge()->snapshot()->live.empty());
    const auto snap = window->bridge()->snapshot();
    checkMapFollowsSelection(*pd, PdPanel::Prefill, *snap);
    checkMapFollowsSelection(*pd, PdPanel::Decode, *snap);
  }

  // --pd on the gui command line: 2:2 simulated instances (or threads on the CPU, one
  // instance each); more than the dock shows, or a half-colocated split, is refused.
  void windowPdSplitFromTheCommandLine() {
    const app::PdSplit sim = app::parseWindowPdSplit("2:2", "sim");
    QCOMPARE(sim.prefill, 2);
    QCOMPARE(sim.decode, 2);
    QCOMPARE(app::parseWindowPdSplit("2:2", "cpu").decode, 2);
    try {
      app::parseWindowPdSplit("9:2", "sim");
      QFAIL("--pd 9:2 on the sim accepted");
    } catch (const app::UsageError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains("--pd 9:2") && QString::fromUtf8(e.what()).contains("at most 8"),
               e.what());
    }
    QVERIFY(MainWindow::pdSplitError(0, 0, "sim").isEmpty());  // back to colocated
    QVERIFY(MainWindow::pdSplitError(2, 0, "cpu").contains("thread counts"));
    QVERIFY(MainWindow::pdSplitError(2, 0, "sim").contains("simulated GPUs"));
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
