// Prefill/decode disaggregation in one process (engine/pd_engine.h): greedy outputs of
// the pair equal the colocated engine's token for token (the KV copied is the KV
// computed); a transfer carries exactly the prompt's full blocks; a full decode pool
// makes requests wait, and every one completes with both pools back to idle; the
// simulated pair is deterministic; kv_transfer_config's errors name the key.
#include <QtTest>

#include <limits>

#include "common/engine_fixture.h"
#include "engine/bench/bench_runner.h"
#include "engine/bench/workload.h"
#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/config/kv_transfer_config.h"
#include "engine/exec/executor.h"
#include "engine/model/model.h"
#include "engine/pd_engine.h"

using namespace lwb;
using namespace lwb::test;

namespace {

PdConfig pairOf(const EngineConfig& c, int decodeBlocks = 0) {
  PdConfig pd;
  pd.prefill = c;
  pd.decode = c;
  pd.prefill.executor.numThreads = 1;
  pd.decode.executor.numThreads = 1;
  pd.decode.numGpuBlocksOverride = decodeBlocks;
  pd.transfer = parseKvTransferConfig(R"({"kv_connector": "PdInProcessConnector"})");
  return pd;
}

// A simulated P/D pair (the sim backend's default device) for a config-only Llama-3-8B.
constexpr const char* kSimModel = LWB_SOURCE_DIR "/resources/sim-models/llama-3-8b";
PdConfig simulatedPair() {
  EngineConfig c;
  c.executor.backend = "sim";
  PdConfig pd;
  pd.prefill = c;
  pd.decode = c;
  pd.transfer = parseKvTransferConfig(R"({"kv_connector": "PdInProcessConnector"})");
  return pd;
}

struct PdRun {
  Outputs tokens;
  std::map<RequestId, RequestTimeline> timelines;
  int maxWaitingTransfers = 0;
  int steps = 0;
};

// Steps the pair until its requests finish, or maxSteps steps.
PdRun stepPair(PdEngine& engine, int maxSteps = std::numeric_limits<int>::max()) {
  PdRun run;
  while (engine.hasUnfinishedRequests() && run.steps < maxSteps) {
    const StepOutput out = engine.step();
    for (const TokenDelta& d : out.deltas) {
      auto& t = run.tokens[d.id];
      t.insert(t.end(), d.newTokenIds.begin(), d.newTokenIds.end());
    }
    for (RequestId id : out.newlyFinished) run.timelines[id] = *engine.timeline(id);
    run.maxWaitingTransfers = std::max(run.maxWaitingTransfers, engine.numWaitingTransfers());
    ++run.steps;
  }
  return run;
}

PdRun runPair(PdEngine& engine, const std::vector<std::vector<int>>& prompts, int maxTokens = kMaxTokens) {
  for (const auto& p : prompts) engine.addRequest(greedy(p, maxTokens));
  return stepPair(engine);
}

// Both pools idle: every block free (cached or not), no hold left.
void checkIdle(PdEngine& engine) {
  QCOMPARE(engine.prefillEngine().numFreeKvBlocks(), engine.prefillEngine().numKvBlocks());
  QCOMPARE(engine.decodeEngine().numFreeKvBlocks(), engine.decodeEngine().numKvBlocks());
  QCOMPARE(engine.numKvHolds(), 0);
  QCOMPARE(engine.numWaitingTransfers(), 0);
}

template <class F>
QString errorOf(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  return QStringLiteral("(nothing thrown)");
}

}  // namespace

class TestPdEngine : public QObject {
  Q_OBJECT
  EngineFixture fx_;

 private slots:
  void initTestCase() { fx_.init(); }

  void greedyOutputsEqualTheColocatedEngines() {
    PdEngine engine(fx_.model, pairOf(knobs(2048, true, true)));
    const PdRun run = runPair(engine, fx_.prompts);
    QCOMPARE(run.tokens.size(), fx_.prompts.size());
    for (size_t p = 0; p < fx_.prompts.size(); ++p) {
      QCOMPARE(run.tokens.at(RequestId(p + 1)), fx_.baseline.tokens.at(RequestId(p + 1)));
      const RequestTimeline& t = run.timelines.at(RequestId(p + 1));
      QCOMPARE(t.finishReason, FinishReason::Length);
      QVERIFY(t.kvTransferTime.has_value());
      QVERIFY(*t.ttft() >= *t.kvTransferTime);
    }
    checkIdle(engine);
  }

  // Chunked prefill on P and a small budget on D: still the same tokens.
  void greedyOutputsDoNotDependOnEitherInstancesBudget() {
    PdConfig pd = pairOf(knobs(2048, true, true));
    pd.prefill.maxNumBatchedTokens = 16;
    pd.prefill.maxNumSeqs = 16;
    pd.decode.maxNumBatchedTokens = 32;
    pd.decode.maxNumSeqs = 32;
    PdEngine engine(fx_.model, pd);
    const PdRun run = runPair(engine, fx_.prompts);
    for (size_t p = 0; p < fx_.prompts.size(); ++p)
      QCOMPARE(run.tokens.at(RequestId(p + 1)), fx_.baseline.tokens.at(RequestId(p + 1)));
    checkIdle(engine);
  }

  // One request into an empty decode pool: every full block of the prompt but the one
  // holding its last token crosses, block_size × layers × K,V × kv heads × head_dim × 4 B each.
  void aTransferCarriesThePromptsFullBlocks() {
    PdEngine engine(fx_.model, pairOf(knobs(2048, true, true)));
    const std::vector<int>& prompt = fx_.prompts.front();
    const PdRun run = runPair(engine, {prompt});
    const int bs = engine.decodeEngine().kvBlockSize();
    const ModelConfig& m = fx_.model->config;
    const int64_t perBlock = int64_t(bs) * m.numHiddenLayers * 2 * m.numKeyValueHeads * m.headDim * 4;
    QCOMPARE(int64_t(engine.decodeEngine().executor().kvBytesPerBlock(bs)), perBlock);
    const RequestTimeline& t = run.timelines.at(1);
    QCOMPARE(t.kvTransferBytes, int64_t((prompt.size() - 1) / size_t(bs)) * perBlock);
    QVERIFY(t.kvTransferBytes > 0);
    // D's admission found them as a prefix hit: it recomputed only the last block.
    QCOMPARE(engine.decodeEngine().totals().prefixHitTokens, int64_t((prompt.size() - 1) / size_t(bs) * size_t(bs)));
    // The same prompt again: D has those blocks cached, nothing crosses.
    const PdRun again = runPair(engine, {prompt});
    QCOMPARE(again.timelines.at(2).kvTransferBytes, int64_t(0));
    QCOMPARE(again.tokens.at(2), run.tokens.at(1));
    checkIdle(engine);
  }

  // D's pool holds one request's sequence at a time: the others wait in the transfer
  // queue, then complete with the colocated tokens; nothing leaks on either side.
  void aFullDecodePoolMakesRequestsWait() {
    int longest = 0;
    for (const auto& p : fx_.prompts) longest = std::max(longest, int(p.size()) + kMaxTokens);
    const int blocks = (longest + 15) / 16 + 1;
    PdEngine engine(fx_.model, pairOf(knobs(2048, true, true), blocks));
    QCOMPARE(engine.decodeEngine().numKvBlocks(), blocks);
    const PdRun run = runPair(engine, fx_.prompts);
    QVERIFY(run.maxWaitingTransfers > 0);
    for (size_t p = 0; p < fx_.prompts.size(); ++p)
      QCOMPARE(run.tokens.at(RequestId(p + 1)), fx_.baseline.tokens.at(RequestId(p + 1)));
    checkIdle(engine);
  }

  // Aborts wherever the requests are (on P, waiting for D's pool, on D): every one is
  // reported once, the others complete with the colocated tokens, nothing leaks.
  void abortsEndRequestsOnEitherSide() {
    int longest = 0;
    for (const auto& p : fx_.prompts) longest = std::max(longest, int(p.size()) + kMaxTokens);
    PdEngine engine(fx_.model, pairOf(knobs(2048, true, true), (longest + 15) / 16 + 1));
    for (const auto& p : fx_.prompts) engine.addRequest(greedy(p));
    engine.abortRequest(1);  // on P
    std::map<RequestId, int> numReports;
    std::map<RequestId, FinishReason> reasons;
    Outputs tokens;
    bool abortedMore = false;
    while (engine.hasUnfinishedRequests()) {
      const StepOutput out = engine.step();
      for (const TokenDelta& d : out.deltas) tokens[d.id].insert(tokens[d.id].end(), d.newTokenIds.begin(), d.newTokenIds.end());
      for (RequestId id : out.newlyFinished) {
        ++numReports[id];
        reasons[id] = engine.timeline(id)->finishReason;
      }
      if (!abortedMore && engine.numWaitingTransfers() > 0) {  // one on D, one or more waiting
        for (RequestId id = 2; id <= 6; ++id) {
          if (!engine.timeline(id)) {
            engine.abortRequest(id);
            if (id == 3) break;
          }
        }
        abortedMore = true;
      }
    }
    QCOMPARE(int(numReports.size()), int(fx_.prompts.size()));
    for (const auto& [id, n] : numReports) QCOMPARE(n, 1);
    QCOMPARE(reasons.at(1), FinishReason::Abort);
    QVERIFY(abortedMore);
    int numAborted = 0;
    for (const auto& [id, reason] : reasons) numAborted += reason == FinishReason::Abort ? 1 : 0;
    QVERIFY(numAborted >= 2);
    QVERIFY(numAborted < int(fx_.prompts.size()));
    for (const auto& [id, reason] : reasons) {
      if (reason == FinishReason::Length) QCOMPARE(tokens.at(id), fx_.baseline.tokens.at(id));
      else QCOMPARE(reason, FinishReason::Abort);
    }
    checkIdle(engine);
  }

  // A decode pool smaller than a prompt fails that request cleanly, not for ever.
  void aDecodePoolTooSmallForThePromptFailsTheRequest() {
    PdEngine engine(fx_.model, pairOf(knobs(2048, true, true), 1));
    std::vector<int> prompt = fx_.prompts.front();
    while (prompt.size() < 40) prompt.push_back(prompt.back());
    const PdRun run = runPair(engine, {prompt});
    QCOMPARE(run.timelines.at(1).finishReason, FinishReason::Error);
    QVERIFY(QString::fromStdString(run.timelines.at(1).error).contains("decode instance"));
    checkIdle(engine);
  }

  // Two simulated H100s serving Llama-3-8B: the same workload twice gives the same run,
  // and every request's transfer is priced at NVLink's bandwidth (at least: a transfer
  // waits for the one before it on P's link; tst_pd_sim).
  void theSimulatedPairIsDeterministic() {
    const auto model = loadModelConfigOnly(kSimModel);
    const PdConfig pd = simulatedPair();
    WorkloadOptions w;
    w.numPrompts = 40;
    w.requestRate = 8;
    w.inputLen = 600;
    w.outputLen = 30;
    w.seed = 3;
    const std::vector<SyntheticRequest> workload = makeWorkloadFor(w, *model);
    auto runOnce = [&] {
      PdEngine engine(model, pd);
      BenchRun run = runServingBenchmark(engine, workload);
      checkIdle(engine);
      return run;
    };
    const BenchRun a = runOnce();
    const BenchRun b = runOnce();
    QCOMPARE(int(a.report.requests.size()), w.numPrompts);
    const KvLink& link = kvLinkPreset("nvlink");
    for (size_t i = 0; i < a.report.requests.size(); ++i) {
      const RequestTimeline& ta = a.report.requests[i].timeline;
      const RequestTimeline& tb = b.report.requests[i].timeline;
      QCOMPARE(ta.tokenTimes, tb.tokenTimes);
      QCOMPARE(ta.kvTransferBytes, tb.kvTransferBytes);
      QVERIFY(ta.kvTransferBytes > 0);
      QVERIFY(*ta.kvTransferTime >= kvLinkSeconds(link, ta.kvTransferBytes) - 1e-12);  // or queued on P's link
      QCOMPARE(ta.numOutputTokens, w.outputLen);
    }
  }

  // D's pool holds about two sequences and every request arrives at once, outputs of
  // different lengths: D admits a transfer only into blocks no admitted request will grow
  // into, so it never preempts, and the pair finishes in a bounded number of steps. (A
  // newcomer admitted into a running request's growth got that one preempted; on the CPU,
  // where P hands requests over from its own thread, the preempted one could then wait
  // for blocks the newcomer held behind it in D's queue, and the pair stepped forever.)
  void aDecodePoolNeverPreemptsForANewcomer() {
    const auto model = loadModelConfigOnly(kSimModel);
    PdConfig pd = simulatedPair();
    const int blockSize = 16, promptLen = 24, longest = promptLen + 200;
    pd.decode.numGpuBlocksOverride = 2 * ((longest + blockSize - 1) / blockSize) + 1;
    PdEngine engine(model, pd);
    QCOMPARE(engine.decodeEngine().kvBlockSize(), blockSize);
    constexpr int kRequests = 12;
    for (int r = 0; r < kRequests; ++r) {
      std::vector<int> prompt(static_cast<size_t>(promptLen));
      for (int i = 0; i < promptLen; ++i) prompt[size_t(i)] = 10 + (r * 131 + i * 17) % 30000;
      engine.addRequest(greedy(prompt, 60 + (r * 37) % 141));
    }
    const PdRun run = stepPair(engine, 20000);
    QVERIFY2(!engine.hasUnfinishedRequests(), qPrintable(QString("still running after %1 steps").arg(run.steps)));
    QCOMPARE(int(run.timelines.size()), kRequests);
    QVERIFY(run.maxWaitingTransfers > 0);  // the pool did make requests wait
    for (const auto& [id, t] : run.timelines) {
      QCOMPARE(t.finishReason, FinishReason::Length);
      QCOMPARE(t.numPreemptions, 0);
    }
    checkIdle(engine);
  }

  void kvTransferConfigErrorsNameTheKey() {
    QVERIFY(!parseKvTransferConfig("").enabled());
    QVERIFY(!parseKvTransferConfig("{}").enabled());
    const KvTransferConfig c =
        parseKvTransferConfig(R"({"kv_connector": "PdInProcessConnector", "kv_connector_extra_config": {"link": "roce"}})");
    QCOMPARE(QString::fromStdString(c.link), QStringLiteral("roce"));
    QCOMPARE(parseKvTransferConfig(c.toJson()), c);
    QVERIFY(errorOf([] { parseKvTransferConfig(R"({"kv_connector": "Nixl"})"); }).contains("kv_connector \"Nixl\""));
    QVERIFY(errorOf([] { parseKvTransferConfig(R"({"kv_connector": "PdInProcessConnector", "kv_role": "x"})"); })
                .contains("kv_role \"x\""));
    QVERIFY(errorOf([] { parseKvTransferConfig(R"({"kv_connector": "PdInProcessConnector", "kv_port": 1})"); })
                .contains("unknown key \"kv_port\""));
    QVERIFY(errorOf([] {
              parseKvTransferConfig(
                  R"({"kv_connector": "PdInProcessConnector", "kv_connector_extra_config": {"link": "pcie"}})");
            }).contains("link \"pcie\""));
    QVERIFY(errorOf([] { parseKvTransferConfig("[1]"); }).contains(QString::fromUtf8(knob::kKvTransferConfig.data())));
  }

  void prefixCachingOffIsRefused() {
    PdConfig pd = pairOf(knobs(2048, true, false));
    QVERIFY(errorOf([&] { PdEngine engine(fx_.model, pd); }).contains(QString::fromUtf8(knob::kEnablePrefixCaching.data())));
  }
};

QTEST_GUILESS_MAIN(TestPdEngine)
#include "tst_pd_engine.moc"
