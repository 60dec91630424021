// The window's data pieces without an engine: the requests table model (under
// QAbstractItemModelTester), the KV block map's cell states and hit testing, and the
// run file round trip.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include "engine/common/json.h"
#include "engine/metrics/record_json.h"
#include "ui/bridge/run_data.h"
#include "ui/bridge/throttle.h"
#include "ui/models/prefix_miss_text.h"
#include "ui/models/requests_table_model.h"
#include "ui/panels/kv_block_map.h"

using namespace lwb;
using namespace lwb::ui;

namespace {
RequestTimeline timeline(RequestId id, bool finished) {
  RequestTimeline t;
  t.id = id;
  t.numPromptTokens = 10 + int(id);
  t.arrivalTime = double(id);
  t.firstScheduledTime = id + 0.1;
  t.firstTokenTime = id + 0.3;
  t.tokenTimes = {id + 0.3, id + 0.35, id + 0.45};
  t.numOutputTokens = 3;
  if (finished) {
    t.finishTime = id + 0.45;
    t.finishReason = FinishReason::Stop;
  }
  return t;
}
KvBlockInfo owned(std::vector<RequestId> owners) {
  KvBlockInfo b;
  b.kind = KvBlockInfo::Kind::Owned;
  b.refCount = int(owners.size());
  b.owners = std::move(owners);
  b.numTokens = 16;
  return b;
}
}  // namespace

class TestUiModels : public QObject {
  Q_OBJECT
 private slots:
  void requestsModelPassesTester();
  void requestsModelRangedDataChanged();
  void requestsModelIsBounded();
  void liveStateFromBlocks();
  void kvMapCellStates();
  void runJsonRoundTrip();
  void runSummaryFollowsVllmDefinitions();
  void runSavedInVersion1Opens();
  void throttleCoalescesAndShowsTheLastState();
  void prefixMissReadsTheSameEverywhere();
};

void TestUiModels::requestsModelPassesTester() {
  RequestsTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  EngineSnapshot snap;
  snap.live = {timeline(1, false), timeline(2, false)};
  snap.live[1].tag = "load";
  snap.kvBlocks = {owned({1})};
  model.update(&snap, {});
  QCOMPARE(model.rowCount(), 2);
  QCOMPARE(model.data(model.index(0, RequestsTableModel::State), Qt::DisplayRole).toString(), QString("running"));
  QCOMPARE(model.data(model.index(1, RequestsTableModel::State), Qt::DisplayRole).toString(), QString("preempted"));
  QCOMPARE(model.data(model.index(1, RequestsTableModel::Tag), Qt::DisplayRole).toString(), QString("load"));
  RequestTimeline speculated = timeline(1, true);
  speculated.specDecode.observe(4, 3);  // two verifications of 4 draft tokens: 3, then 1 accepted
  speculated.specDecode.observe(4, 1);
  RequestFinishedEvent done{speculated, {}};
  snap.live = {timeline(2, false)};
  model.update(&snap, {done});
  QCOMPARE(model.data(model.index(0, RequestsTableModel::Drafts), Qt::DisplayRole).toString(), QString("4/8 (3.00)"));
  QCOMPARE(model.data(model.index(1, RequestsTableModel::Drafts), Qt::DisplayRole).toString(), QString());
  QCOMPARE(model.rowCount(), 2);
  QCOMPARE(model.data(model.index(0, RequestsTableModel::State), Qt::DisplayRole).toString(), QString("finished"));
  QCOMPARE(model.data(model.index(0, RequestsTableModel::Ttft), Qt::DisplayRole).toString(), QString("300.0"));
  QCOMPARE(model.data(model.index(0, RequestsTableModel::Finish), Qt::DisplayRole).toString(), QString("stop"));
  QCOMPARE(model.rowOf(2), 1);
  model.clear();
  QCOMPARE(model.rowCount(), 0);
}

void TestUiModels::requestsModelRangedDataChanged() {
  RequestsTableModel model;
  EngineSnapshot snap;
  for (RequestId id = 1; id <= 10; ++id) snap.live.push_back(timeline(id, false));
  model.update(&snap, {});
  QSignalSpy spy(&model, &QAbstractItemModel::dataChanged);
  snap.live = {timeline(4, false), timeline(6, false)};
  model.update(&snap, {});
  QCOMPARE(spy.count(), 1);  // one signal per tick, covering rows 3..5
  QCOMPARE(spy[0][0].toModelIndex().row(), 3);
  QCOMPARE(spy[0][1].toModelIndex().row(), 5);
}

void TestUiModels::requestsModelIsBounded() {
  RequestsTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  std::vector<RequestFinishedEvent> batch;
  for (RequestId id = 0; id < RequestsTableModel::kMaxRows + 50; ++id) batch.push_back({timeline(id, true), {}});
  model.update(nullptr, batch);
  QCOMPARE(model.rowCount(), RequestsTableModel::kMaxRows);
  QCOMPARE(model.idAt(0), RequestId(50));  // the oldest went first
  QCOMPARE(model.rowOf(49), -1);
  QCOMPARE(model.rowOf(RequestsTableModel::kMaxRows + 49), RequestsTableModel::kMaxRows - 1);
}

void TestUiModels::liveStateFromBlocks() {
  RequestTimeline waiting;
  waiting.id = 7;
  QCOMPARE(inferLiveState(waiting, {owned({3})}), QString("waiting"));
  waiting.firstScheduledTime = 1.0;
  QCOMPARE(inferLiveState(waiting, {owned({3})}), QString("preempted"));
  QCOMPARE(inferLiveState(waiting, {owned({3, 7})}), QString("running"));
}

void TestUiModels::kvMapCellStates() {
  KvBlockMap map;
  map.resize(400, 300);
  std::vector<KvBlockInfo> blocks(64);
  blocks[0] = owned({1});
  blocks[1] = owned({1, 2});
  blocks[2].kind = KvBlockInfo::Kind::CachedFree;
  blocks[2].hasHash = true;
  blocks[2].hash = 0xabcdef;
  map.setBlocks(blocks, 0);
  QCOMPARE(map.numBlocks(), 64);
  QCOMPARE(map.cellState(0), KvBlockMap::CellState::Owned);
  QCOMPARE(map.cellState(1), KvBlockMap::CellState::Shared);
  QCOMPARE(map.cellState(2), KvBlockMap::CellState::CachedFree);
  QCOMPARE(map.cellState(3), KvBlockMap::CellState::Free);
  for (int i : {0, 1, 17, 63}) {
    const QRect r = map.cellRect(i);
    QVERIFY2(map.rect().contains(r), qPrintable(QString("block %1 is drawn outside the widget").arg(i)));
    QCOMPARE(map.blockAt(r.center()), i);
  }
  QVERIFY(map.describeBlock(1).contains("shared by 2"));
  QVERIFY(map.describeBlock(2).contains("abcdef"));
  // A preemption: block 0 leaves its owner while the preemption count grows → it flashes.
  blocks[0] = KvBlockInfo{};
  map.setBlocks(blocks, 1);
  QCOMPARE(map.numFlashing(), 1);
  QCOMPARE(map.cellState(0), KvBlockMap::CellState::Free);
}

void TestUiModels::runJsonRoundTrip() {
  RunData run;
  run.modelDir = "/m";
  run.initialConfig.maxNumBatchedTokens = 512;
  run.initialConfig.schedulingPolicy = SchedulingPolicy::Priority;
  run.knobChanges.push_back({1.5, "max_num_batched_tokens 2048 → 512", run.initialConfig});
  run.hasWorkload = true;
  run.workload.numPrompts = 7;
  run.requests = {timeline(1, true), timeline(2, true)};
  run.requests[1].firstTokenTime.reset();
  run.requests[0].tag = "chat 1";
  StepRecord s;
  s.step = 3;
  s.numPrefillTokens = 100;
  s.prefixQueryTokens = 64;
  s.prefixHitTokens = 48;
  run.steps.push_back(s);
  const RunData back = runFromJson(lwb::parseJson(runToJson(run).dump()));
  QCOMPARE(back.initialConfig.maxNumBatchedTokens, 512);
  QCOMPARE(back.initialConfig.schedulingPolicy, SchedulingPolicy::Priority);
  QCOMPARE(back.knobChanges.size(), size_t(1));
  QCOMPARE(back.knobChanges[0].description, run.knobChanges[0].description);
  QVERIFY(back.hasWorkload);
  QCOMPARE(back.workload.numPrompts, 7);
  QVERIFY(std::isinf(back.workload.requestRate));
  QCOMPARE(back.requests.size(), size_t(2));
  QCOMPARE(back.requests[0].tokenTimes, run.requests[0].tokenTimes);
  QVERIFY(!back.requests[1].firstTokenTime.has_value());
  QCOMPARE(back.requests[0].finishReason, FinishReason::Stop);
  QCOMPARE(back.requests[0].tag, std::string("chat 1"));
  QCOMPARE(back.requests[1].tag, std::string());
  QCOMPARE(back.steps[0].prefixHitTokens, int64_t(48));
  bool threw = false;
  try {
    runFromJson(nlohmann::json{{"format", "other"}});
  } catch (const std::exception& e) {
    threw = QString(e.what()).contains("format");
  }
  QVERIFY2(threw, "a document that is not a run must be refused with a message naming \"format\"");
}

// A run saved before the one record encoding (version 1: steps as arrays of 15 or 16
// numbers) opens, and saving it again writes steps as objects that read back the same.
void TestUiModels::runSavedInVersion1Opens() {
  QFile f(QStringLiteral(LWB_TEST_DATA_DIR "/runs/run_v1.json"));
  QVERIFY(f.open(QIODevice::ReadOnly));
  const RunData run = runFromJson(lwb::parseJson(f.readAll().toStdString()));
  QCOMPARE(run.modelDir, std::string("/models/austen-11m"));
  QCOMPARE(run.knobChanges.size(), size_t(1));
  QCOMPARE(run.knobChanges[0].config.maxNumBatchedTokens, 512);
  QCOMPARE(run.requests.size(), size_t(2));
  QCOMPARE(run.requests[0].finishReason, FinishReason::Length);
  QCOMPARE(run.requests[0].tokenTimes, (std::vector<double>{0.3, 0.45, 0.6}));
  QCOMPARE(run.requests[1].finishReason, FinishReason::Abort);
  QVERIFY(!run.requests[1].firstTokenTime.has_value());
  QCOMPARE(run.requests[1].preemptionTimes, std::vector<double>{0.5});
  QCOMPARE(run.requests[1].tag, std::string("chat 1"));
  QCOMPARE(run.steps.size(), size_t(3));
  QCOMPARE(run.steps[0].numPrefillTokens, 40);        // 15 numbers: no prefix_query_requests
  QCOMPARE(run.steps[0].prefixQueryRequests, int64_t(0));
  QCOMPARE(run.steps[1].prefixHitTokens, int64_t(32));
  QCOMPARE(run.steps[1].prefixQueryRequests, int64_t(1));
  QCOMPARE(run.steps[2].tokenBudget, 512);
  QCOMPARE(run.steps[2].numBlocksCachedFree, 2);
  const nlohmann::json saved = runToJson(run);
  QCOMPARE(saved["version"].get<int>(), 2);
  QVERIFY(saved["steps"][1].is_object());
  QCOMPARE(saved["steps"][1]["prefix_hit_tokens"].get<int64_t>(), int64_t(32));
  const RunData again = runFromJson(lwb::parseJson(saved.dump()));
  for (size_t i = 0; i < run.steps.size(); ++i)
    QVERIFY(stepToJson(again.steps[i]) == stepToJson(run.steps[i]));
  QVERIFY(timelineToJson(again.requests[1]) == timelineToJson(run.requests[1]));
  bool threw = false;
  try {
    stepFromJson(nlohmann::json::array({1, 2, 3}));
  } catch (const std::exception& e) {
    threw = QString(e.what()).contains("found 3");
  }
  QVERIFY2(threw, "a step array of the wrong length must be refused naming its length");
}

void TestUiModels::runSummaryFollowsVllmDefinitions() {
  RunData run;
  run.requests = {timeline(0, true), timeline(1, true)};
  StepRecord s;
  s.prefixQueryTokens = 100;
  s.prefixHitTokens = 25;
  run.steps.push_back(s);
  const BenchReport sum = summarizeRun(run);
  QCOMPARE(sum.completed, 2);
  QCOMPARE(sum.ttftMs.mean, 300.0);
  QVERIFY(qAbs(sum.itlMs.mean - 75.0) < 1e-9);  // gaps of 50 and 100 ms
  QCOMPARE(sum.prefixCacheHitRate, 0.25);
  QVERIFY(qAbs(sum.duration - 1.45) < 1e-9);  // first arrival 0 → last token 1.45
}

// A burst of refresh requests runs once at once and once more afterwards (the trailing
// run shows the last state even if no further request comes); never once per request.
void TestUiModels::throttleCoalescesAndShowsTheLastState() {
  int slowRuns = 0;
  Throttle slow(60000, [&] { ++slowRuns; });
  for (int i = 0; i < 100; ++i) slow.request();
  QCOMPARE(slowRuns, 1);  // the first at once, the other 99 coalesced into one pending run
  int runs = 0;
  Throttle fast(20, [&] { ++runs; });
  fast.request();
  QCOMPARE(runs, 1);
  fast.request();
  QTRY_COMPARE(runs, 2);  // the trailing run, with no further request
  QTest::qWait(100);
  QCOMPARE(runs, 2);      // nothing was pending any more
}

QTEST_MAIN(TestUiModels)
// The example: 141 prompt tokens, 112 from the cache, 16 diverged at token 125
// ('Thursday' vs 'Friday'), 13 in the partial block. The chat line, the table's cell and
// tooltip, a saved run and a bench record read the same numbers.
void TestUiModels::prefixMissReadsTheSameEverywhere() {
  RequestTimeline t = timeline(1, true);
  t.numPromptTokens = 141;
  t.numCachedPromptTokens = 112;
  t.prefixMiss.accounted = true;
  t.prefixMiss[PrefixMissReason::Diverged] = 16;
  t.prefixMiss[PrefixMissReason::PartialBlock] = 13;
  t.prefixMiss.divergedAtToken = 125;
  t.prefixMiss.divergedOurText = "Thursday";
  t.prefixMiss.divergedTheirText = "Friday";
  QCOMPARE(prefixMissSentence(t), QString("112 of 141 prompt tokens from cache; 29 computed: 13 partial block, "
                                          "16 diverged at token 125 ('Thursday' vs 'Friday')"));
  RequestsTableModel model;
  EngineSnapshot snap;
  model.update(&snap, {RequestFinishedEvent{t, {}}});
  QCOMPARE(model.data(model.index(0, RequestsTableModel::Missed), Qt::DisplayRole).toString(),
           QString("29: 13 partial block, 16 diverged"));
  QVERIFY(model.data(model.index(0, RequestsTableModel::Missed), Qt::ToolTipRole).toString().startsWith(prefixMissSentence(t)));

  RunData run;
  run.requests = {t};
  StepRecord s;
  s.prefixMissTokens[size_t(PrefixMissReason::Diverged)] = 16;
  run.steps.push_back(s);
  const RunData back = runFromJson(lwb::parseJson(runToJson(run).dump()));
  QCOMPARE(prefixMissSentence(back.requests[0]), prefixMissSentence(t));
  QCOMPARE(back.steps[0].prefixMissTokens, s.prefixMissTokens);

  nlohmann::json record = timelineToJson(t);
  QCOMPARE(record["missed_by_reason"].dump(), std::string("{\"diverged\":16,\"partial_block\":13}"));
  QCOMPARE(record["diverged_at_token"].get<int>(), 125);
  record["missed_by_reason"]["stale"] = 3;
  bool named = false;
  try {
    timelineFromJson(record);
  } catch (const std::exception& e) {
    named = QString(e.what()).contains("stale");
  }
  QVERIFY2(named, "an unknown reason must be refused with a message naming it");
}

#include "tst_ui_models.moc"
