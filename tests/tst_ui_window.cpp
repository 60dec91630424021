// The whole window against a real engine: chat streaming and Stop, a knob reaching the
// engine, the load generator feeding every chart, the KV map matching a snapshot, and
// screenshots of the window and each dock (into $LWB_TEST_ARTIFACTS) for a human to look
// at. Uses the default model when present, else a small random model (same tokenizer
// conventions), so the wiring is tested either way.
#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include "common/random_model.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/bridge/run_export.h"
#include "ui/charts/batch_chart.h"
#include "ui/charts/latency_chart.h"
#include "ui/charts/prefix_cache_chart.h"
#include "ui/charts/timeline_chart.h"
#include "ui/main_window.h"
#include "ui/models/requests_table_model.h"
#include "ui/panels/chat_conversation.h"
#include "ui/panels/chat_panel.h"
#include "ui/panels/knobs_panel.h"
#include "ui/panels/kv_block_map.h"
#include "ui/panels/kv_panel.h"
#include "ui/panels/latency_panel.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/requests_panel.h"
#include "ui/panels/runs_panel.h"
#include "ui/theme.h"

using namespace lwb;
using namespace lwb::ui;

namespace {
constexpr int kTimeoutMs = 60000;

void saveShot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(dir + "/" + name + ".png", "PNG"));
}
}  // namespace

class TestUiWindow : public QObject {
  Q_OBJECT
 private slots:
  void init() { clock_.start(); }
  void cleanup() { qInfo("%lld ms", static_cast<long long>(clock_.elapsed())); }
  void initTestCase();
  void cleanupTestCase();
  void modelLoads();
  void defaultLayoutKeepsPlotsReadable();
  void resetLayoutRestoresDefault();
  void olderPersistedLayoutIsIgnored();
  void chatStreamsAndShowsMetrics();
  void stopAbortsTheAnswer();
  void chatIsSavedAsItGrowsAndRestored();
  void knobChangeReachesEngine();
  void loadGeneratorFeedsCharts();
  void kvMapMatchesSnapshot();
  void runsCompareAndExport();
  void screenshots();

 private:
  bool tabbedTogether(const char* a, const char* b) const {
    auto* da = window_->findChild<QDockWidget*>(a);
    auto* db = window_->findChild<QDockWidget*>(b);
    return da && db && window_->tabifiedDockWidgets(da).contains(db);
  }
  QTemporaryDir tmp_;
  QElapsedTimer clock_;
  QString modelDir_;
  std::unique_ptr<MainWindow> window_;
};

void TestUiWindow::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);  // autosave and settings stay out of $HOME
  QCoreApplication::setOrganizationName("llm-workbench-test");
  QFile::remove(ChatPanel::storagePath());
  try {
    modelDir_ = QString::fromStdString(defaultModelDir());
    qInfo("using the default model: %s", qPrintable(modelDir_));
  } catch (const std::exception& e) {
    RandomModelSpec spec;
    spec.maxPositionEmbeddings = 1024;
    modelDir_ = QString::fromStdString(writeRandomLlamaModel(tmp_.filePath("random").toStdString(), spec));
    qInfo("default model absent (%s); using a random model", e.what());
  }
  WindowOptions options;
  options.modelDir = modelDir_;
  options.knobs.executor.backend = "cpu";
  options.knobs.executor.numThreads = 1;
  options.restoreLayout = false;
  theme::apply(*qApp);
  window_ = std::make_unique<MainWindow>(options);
  window_->resize(1400, 900);
  window_->show();
}

void TestUiWindow::cleanupTestCase() { window_.reset(); }

void TestUiWindow::modelLoads() {
  QTRY_VERIFY_WITH_TIMEOUT(window_->bridge()->attached(), kTimeoutMs);
  QVERIFY(window_->bridge()->model() != nullptr);
  QVERIFY(window_->lastError().isEmpty());
}

// At the default size every visible time chart keeps its minimum plot height, and the
// less used views share a place as tabs.
void TestUiWindow::defaultLayoutKeepsPlotsReadable() {
  QTRY_VERIFY(window_->isVisible());
  QTest::qWait(50);  // sizeDocks() runs queued after the first show
  QVERIFY(tabbedTogether("dock.latency", "dock.prefix"));
  QVERIFY(tabbedTogether("dock.prefix", "dock.spec"));
  QVERIFY(tabbedTogether("dock.requests", "dock.timeline"));
  QVERIFY(tabbedTogether("dock.knobs", "dock.runs"));
  QVERIFY(tabbedTogether("dock.batch", "dock.capacity"));
  for (QCustomPlot* plot : {window_->batch()->plot(), window_->latency()->chart()->plot()}) {
    QVERIFY(plot->isVisible());
    QVERIFY2(plot->height() >= plot->minimumHeight() && plot->minimumHeight() >= 2 * TimeChart::kMinRectHeight,
             qPrintable(QString("plot height %1, minimum %2").arg(plot->height()).arg(plot->minimumHeight())));
  }
  // The chat's token view starts collapsed: the transcript gets the height.
  QVERIFY(!window_->chat()->current()->showsTokens());
}

void TestUiWindow::resetLayoutRestoresDefault() {
  auto* prefix = window_->findChild<QDockWidget*>("dock.prefix");
  auto* timeline = window_->findChild<QDockWidget*>("dock.timeline");
  window_->splitDockWidget(window_->findChild<QDockWidget*>("dock.batch"), prefix, Qt::Vertical);
  timeline->setFloating(true);
  QVERIFY(!tabbedTogether("dock.latency", "dock.prefix"));
  window_->resetLayout();
  QVERIFY(!timeline->isFloating());
  QVERIFY(tabbedTogether("dock.latency", "dock.prefix"));
  QVERIFY(tabbedTogether("dock.requests", "dock.timeline"));
  QCOMPARE(window_->dockWidgetArea(prefix), Qt::RightDockWidgetArea);
}

// A layout saved under an older state version must not replace the new default; one
// saved under the current version is restored (so the check can fail).
void TestUiWindow::olderPersistedLayoutIsIgnored() {
  WindowOptions options;
  options.modelDir = tmp_.filePath("no-such-model");  // fails fast; no second engine
  auto split = [](MainWindow& w) {
    w.splitDockWidget(w.findChild<QDockWidget*>("dock.batch"), w.findChild<QDockWidget*>("dock.prefix"), Qt::Vertical);
  };
  auto prefixTabbed = [](MainWindow& w) {
    return w.tabifiedDockWidgets(w.findChild<QDockWidget*>("dock.latency")).contains(w.findChild<QDockWidget*>("dock.prefix"));
  };
  QByteArray oldState, currentState;
  {
    MainWindow w(options);
    split(w);
    QVERIFY(!prefixTabbed(w));
    oldState = w.saveState(MainWindow::kStateVersion - 1);
    currentState = w.saveState(MainWindow::kStateVersion);
  }
  QSettings settings;
  settings.setValue("window/state", oldState);
  {
    MainWindow w(options);
    QVERIFY(prefixTabbed(w));
  }
  settings.setValue("window/state", currentState);
  {
    MainWindow w(options);
    QVERIFY(!prefixTabbed(w));
  }
  settings.remove("window/state");
}

void TestUiWindow::chatStreamsAndShowsMetrics() {
  ChatConversation* chat = window_->chat()->current();
  QVERIFY(chat);
  chat->setInput("Good morning! How are you today?");
  QVERIFY(chat->send());
  QVERIFY(chat->busy());
  QTRY_VERIFY_WITH_TIMEOUT(!chat->busy(), kTimeoutMs);
  const auto& answer = chat->messages().back();
  QVERIFY(answer.role == ChatTurn::Role::Assistant);
  QVERIFY2(answer.stats.find("TTFT") != std::string::npos, answer.stats.c_str());
  // Every prompt token accounted for: from the cache, or computed for a reason.
  QVERIFY2(answer.stats.find("prompt tokens from cache") != std::string::npos, answer.stats.c_str());
  QVERIFY(!chat->lastPromptIds().empty());
  // Streaming went through the bridge: the finished request is in the requests table.
  QVERIFY(window_->requests()->model()->rowCount() >= 1);
  // A second turn re-sends the history: the system prompt's blocks now hit the cache.
  chat->setInput("Tell me more.");
  QVERIFY(chat->send());
  QTRY_VERIFY_WITH_TIMEOUT(!chat->busy(), kTimeoutMs);
  QVERIFY2(chat->messages().back().stats.find("prompt") != std::string::npos, chat->messages().back().stats.c_str());
  chat->setShowTokens(true);
  QVERIFY(chat->showsTokens());
  saveShot(window_->chat(), "chat-with-tokens");
  chat->setShowTokens(false);  // the screenshots show the default
  QVERIFY(!chat->showsTokens());
}

// An answer is autosaved while it streams (within the 500 ms debounce), so a kill
// mid-answer keeps it; a panel restored from that file shows it as interrupted.
void TestUiWindow::chatIsSavedAsItGrowsAndRestored() {
  EngineBridge* loop = window_->bridge();
  ChatPanel* panel = window_->chat();
  ChatConversation* chat = panel->current();
  loop->setPaused(true);  // the answer grows only by the frame below
  chat->setInput("Where is Mr. Darcy?");
  QVERIFY(chat->send());
  Frame frame;
  TokenDelta delta;
  delta.id = chat->activeRequest();
  delta.newText = "He walked out";
  frame.deltas.push_back(delta);
  panel->onFrame(frame);
  QCOMPARE(chat->messages().back().content, std::string("He walked out"));
  auto savedAnswer = [] {
    QFile f(ChatPanel::storagePath());
    if (!f.open(QIODevice::ReadOnly)) return QString();
    const QJsonArray all = QJsonDocument::fromJson(f.readAll()).object().value("conversations").toArray();
    for (const auto& c : all) {
      const QJsonArray msgs = c.toObject().value("messages").toArray();
      if (!msgs.isEmpty() && msgs.last().toObject().value("role").toString() == "assistant")
        return msgs.last().toObject().value("content").toString();
    }
    return QString();
  };
  QTRY_COMPARE_WITH_TIMEOUT(savedAnswer(), QString("He walked out"), kTimeoutMs);  // while still streaming
  {
    ChatPanel restored(window_->bridge());
    bool found = false;
    for (int i = 0; i < restored.count(); ++i) {
      const auto& msgs = restored.conversation(i)->messages();
      if (!msgs.empty() && msgs.back().content == "He walked out") {
        found = true;
        QVERIFY2(msgs.back().stats.find("interrupted") != std::string::npos, msgs.back().stats.c_str());
      }
    }
    QVERIFY(found);
  }
  chat->stop();
  loop->setPaused(false);
  QTRY_VERIFY_WITH_TIMEOUT(!chat->busy(), kTimeoutMs);
}

void TestUiWindow::stopAbortsTheAnswer() {
  EngineBridge* loop = window_->bridge();
  ChatConversation* chat = window_->chat()->current();
  loop->setPaused(true);  // the request cannot finish on its own before Stop
  chat->setInput("Please write a long letter.");
  QVERIFY(chat->send());
  chat->stop();
  loop->setPaused(false);
  QTRY_VERIFY_WITH_TIMEOUT(!chat->busy(), kTimeoutMs);
  QVERIFY2(chat->messages().back().stats.find("finish: abort") != std::string::npos,
           chat->messages().back().stats.c_str());
}

void TestUiWindow::knobChangeReachesEngine() {
  KnobsPanel* knobs = window_->knobs();
  // Unset batch knobs are vLLM's default for the device the engine runs on (CPU here).
  QCOMPARE(qobject_cast<QSpinBox*>(knobs->field("max_num_batched_tokens"))->specialValueText(), QString("default (2048)"));
  EngineConfig c = knobs->collect();
  c.maxNumBatchedTokens = 96;
  c.maxNumSeqs = 64;  // vLLM: max_num_batched_tokens >= max_num_seqs
  c.enableChunkedPrefill = true;
  knobs->showConfig(c);
  QVERIFY2(knobs->apply(knobs->collect(), false), qPrintable(knobs->errorText()));
  QTRY_COMPARE_WITH_TIMEOUT(window_->bridge()->loop()->config().maxNumBatchedTokens, 96, kTimeoutMs);
  QTRY_VERIFY_WITH_TIMEOUT(!window_->bridge()->run().knobChanges.empty(), kTimeoutMs);
  // An invalid value shows the engine's message instead of reaching it.
  c.maxNumBatchedTokens = -5;
  QVERIFY(!knobs->apply(c, false));
  QVERIFY(knobs->errorText().contains("max_num_batched_tokens"));
  QCOMPARE(window_->bridge()->loop()->config().maxNumBatchedTokens, 96);
}

void TestUiWindow::loadGeneratorFeedsCharts() {
  QAbstractItemModelTester tester(window_->requests()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  LoadPanel* load = window_->load();
  WorkloadOptions w;
  w.numPrompts = 12;
  w.requestRate = 40;
  w.inputLen = 40;
  w.outputLen = 12;
  w.sharedPrefixLen = 48;
  w.numPrefixGroups = 2;
  w.ignoreEos = true;
  load->setOptions(w);
  QVERIFY(load->start());
  QTRY_COMPARE_WITH_TIMEOUT(load->numFinished(), 12, kTimeoutMs);
  QTRY_VERIFY_WITH_TIMEOUT(window_->batch()->numPoints() > 0, kTimeoutMs);
  QTRY_VERIFY_WITH_TIMEOUT(window_->prefix()->numPoints() > 0, kTimeoutMs);
  QTRY_VERIFY_WITH_TIMEOUT(window_->latency()->chart()->numTtftPoints() >= 12, kTimeoutMs);
  QVERIFY(window_->latency()->timeline()->numRows() > 0);
  QVERIFY(window_->requests()->model()->rowCount() >= 12);
  int fromLoad = 0;
  auto* m = window_->requests()->model();
  for (int r = 0; r < m->rowCount(); ++r)
    fromLoad += m->data(m->index(r, RequestsTableModel::Tag), Qt::DisplayRole).toString() == "load";
  QCOMPARE(fromLoad, 12);
  // Shared prefixes: later requests of a group hit the cache.
  int64_t hits = 0;
  for (const auto& s : window_->bridge()->run().steps) hits += s.prefixHitTokens;
  QVERIFY(hits > 0);
}

void TestUiWindow::kvMapMatchesSnapshot() {
  EngineBridge* bridge = window_->bridge();
  LoadPanel* load = window_->load();
  WorkloadOptions w;
  w.numPrompts = 6;
  w.requestRate = std::numeric_limits<double>::infinity();
  w.inputLen = 64;
  w.outputLen = 400;
  w.sharedPrefixLen = 32;
  w.ignoreEos = true;
  load->setOptions(w);
  // The bridge may still hold a snapshot from the last test's tail (running requests, a
  // step before they finished): wait for the idle engine first, so that a later step with
  // running requests can only be this load's.
  QTRY_VERIFY_WITH_TIMEOUT(bridge->lastSnapshot() && bridge->lastSnapshot()->numRunning == 0 &&
                               bridge->lastSnapshot()->numWaiting == 0,
                           kTimeoutMs);
  const int64_t idleStep = bridge->lastSnapshot()->step;
  QVERIFY(load->start());
  // Wait until requests hold blocks, then freeze the engine and compare.
  QTRY_VERIFY_WITH_TIMEOUT(bridge->lastSnapshot()->step > idleStep && bridge->lastSnapshot()->numRunning > 0, kTimeoutMs);
  bridge->setPaused(true);
  bridge->poll();  // the map now shows exactly bridge->lastSnapshot()
  const auto snap = bridge->lastSnapshot();
  KvBlockMap* map = window_->kv()->map();
  QCOMPARE(map->numBlocks(), int(snap->kvBlocks.size()));
  int owned = 0;
  for (int i = 0; i < map->numBlocks(); ++i) {
    const auto& b = snap->kvBlocks[size_t(i)];
    KvBlockMap::CellState expected = KvBlockMap::CellState::Free;
    if (b.kind == KvBlockInfo::Kind::CachedFree) expected = KvBlockMap::CellState::CachedFree;
    if (b.kind == KvBlockInfo::Kind::Owned)
      expected = b.refCount > 1 ? KvBlockMap::CellState::Shared : KvBlockMap::CellState::Owned;
    QCOMPARE(map->cellState(i), expected);
    owned += b.kind == KvBlockInfo::Kind::Owned;
  }
  QVERIFY(owned > 0);
  // Blocks the grid leaves out are explained in the caption, not drawn over the cells.
  if (!map->note().isEmpty()) QVERIFY2(window_->kv()->caption().contains(map->note().toHtmlEscaped()), qPrintable(window_->kv()->caption()));
  // Selecting a running request highlights it in the map and timeline.
  const RequestId id = snap->live.front().id;
  window_->requests()->selectRequest(id);
  saveShot(window_.get(), "window-paused-with-load");
  bridge->setPaused(false);
  load->stop();
  QTRY_VERIFY_WITH_TIMEOUT(bridge->lastSnapshot()->numRunning == 0, kTimeoutMs);
}

void TestUiWindow::runsCompareAndExport() {
  const QString path = tmp_.filePath("run.json");
  RunsPanel* runs = window_->runs();
  QCOMPARE(saveRunJson(window_->bridge()->run(), path), QString());
  QCOMPARE(runs->openRun(1, path), QString());
  runs->refresh();
  QVERIFY(runs->plot()->graphCount() >= 4);  // TTFT and ITL CDFs of A and B
}

void TestUiWindow::screenshots() {
  QTest::qWait(300);  // let queued replots happen
  saveShot(window_.get(), "window");
  for (QDockWidget* d : window_->docks()) {
    d->show();
    d->raise();
    QCoreApplication::processEvents();
    saveShot(d, d->objectName().replace("dock.", "dock-"));
  }
}

QTEST_MAIN(TestUiWindow)
#include "tst_ui_window.moc"
