// P/D on the simulator (engine/pd_engine.h, N:M) and colocated replicas
// (engine/replicated_engine.h): every request finishes exactly once, no block stays
// owned on any instance, the work splits across instances, a slower link takes longer,
// a prefill instance's link is a serial queue, and 1P+1D runs the same workload as two
// colocated replicas through the same bench runner.
#include <QtTest>

#include <map>

#include "engine/bench/bench_runner.h"
#include "engine/bench/workload.h"
#include "engine/config/kv_transfer_config.h"
#include "engine/model/model.h"
#include "engine/pd_engine.h"
#include "engine/replicated_engine.h"

using namespace lwb;

namespace {

std::shared_ptr<const Model> llama8b() {
  static const auto model = loadModelConfigOnly(LWB_SOURCE_DIR "/resources/sim-models/llama-3-8b");
  return model;
}

EngineConfig simConfig() {
  EngineConfig c;
  c.executor.backend = "sim";
  return c;
}

PdConfig deployment(int numPrefill, int numDecode, const std::string& link = "nvlink") {
  PdConfig pd;
  pd.prefill = pd.decode = simConfig();
  pd.numPrefill = numPrefill;
  pd.numDecode = numDecode;
  pd.transfer = parseKvTransferConfig(R"({"kv_connector": "PdInProcessConnector", "kv_connector_extra_config": )"
                                      R"({"link": ")" + link + R"("}})");
  return pd;
}

std::vector<SyntheticRequest> workload(int numPrompts, double rate, int inputLen = 600, int outputLen = 20) {
  WorkloadOptions w;
  w.numPrompts = numPrompts;
  w.requestRate = rate;
  w.inputLen = inputLen;
  w.outputLen = outputLen;
  w.ignoreEos = true;
  w.seed = 7;
  return makeWorkloadFor(w, *llama8b());
}

// Every instance's pool back to idle: all blocks free (cached or not), no hold, nothing
// waiting for a transfer.
void checkIdle(PdEngine& e) {
  for (int i = 0; i < e.numPrefillInstances(); ++i)
    QCOMPARE(e.prefillEngine(i).numFreeKvBlocks(), e.prefillEngine(i).numKvBlocks());
  for (int j = 0; j < e.numDecodeInstances(); ++j)
    QCOMPARE(e.decodeEngine(j).numFreeKvBlocks(), e.decodeEngine(j).numKvBlocks());
  QCOMPARE(e.numKvHolds(), 0);
  QCOMPARE(e.numWaitingTransfers(), 0);
}

int64_t sumOf(const std::vector<StepRecord>& steps, int StepRecord::*field) {
  int64_t n = 0;
  for (const StepRecord& s : steps) n += s.*field;
  return n;
}

}  // namespace

class TestPdSim : public QObject {
  Q_OBJECT

 private slots:
  // 2 prefill + 3 decode instances, all requests at once: each finishes exactly once
  // with all its tokens, every instance did part of the work, and the parts add up.
  void nToMRunsCompleteAndSplitTheWork() {
    PdEngine engine(llama8b(), deployment(2, 3));
    const std::vector<SyntheticRequest> w = workload(24, std::numeric_limits<double>::infinity());
    std::map<RequestId, int> numFinishes, numTokens;
    int64_t numPromptTokens = 0;
    for (const SyntheticRequest& r : w) {
      engine.addRequest({r.promptTokenIds, r.sampling, 0, "test"});
      numPromptTokens += int64_t(r.promptTokenIds.size());
    }
    while (engine.hasUnfinishedRequests()) {
      const StepOutput out = engine.step();
      for (const TokenDelta& d : out.deltas) numTokens[d.id] += int(d.newTokenIds.size());
      for (RequestId id : out.newlyFinished) ++numFinishes[id];
    }
    QCOMPARE(int(numFinishes.size()), int(w.size()));
    for (const auto& [id, n] : numFinishes) {
      QCOMPARE(n, 1);
      QCOMPARE(numTokens[id], 20);
      QVERIFY(engine.timeline(id)->kvTransferBytes > 0);
    }
    checkIdle(engine);
    int64_t prefilled = 0, decoded = 0;
    for (int i = 0; i < 2; ++i) {
      const auto& steps = engine.prefillEngine(i).steps();
      QVERIFY2(!steps.empty(), "every prefill instance prefills some requests");
      prefilled += sumOf(steps, &StepRecord::numPrefillTokens);
    }
    for (int j = 0; j < 3; ++j) {
      const auto& steps = engine.decodeEngine(j).steps();
      QVERIFY2(!steps.empty(), "every decode instance decodes some requests");
      decoded += sumOf(steps, &StepRecord::numDecodeTokens);
    }
    QCOMPARE(prefilled, numPromptTokens);         // each prompt prefilled once, on one P
    QCOMPARE(decoded, int64_t(w.size()) * 19);    // D samples the first token from its prefill tail
  }

  // The same workload over RoCE (25 GB/s) and NVLink (450 GB/s): every transfer takes
  // longer on the slower link, and TTFT (transfer included) grows with it.
  void aSlowerLinkTakesLonger() {
    const std::vector<SyntheticRequest> w = workload(16, 4);
    auto runOver = [&](const std::string& link) {
      PdEngine engine(llama8b(), deployment(1, 2, link));
      BenchRun run = runServingBenchmark(engine, w);
      checkIdle(engine);
      return run;
    };
    const BenchRun fast = runOver("nvlink");
    const BenchRun slow = runOver("roce");
    for (size_t i = 0; i < w.size(); ++i) {
      const RequestTimeline& f = fast.report.requests[i].timeline;
      const RequestTimeline& s = slow.report.requests[i].timeline;
      QCOMPARE(s.kvTransferBytes, f.kvTransferBytes);
      QVERIFY(*s.kvTransferTime > *f.kvTransferTime);
    }
    QVERIFY(slow.report.ttftMs.mean > fast.report.ttftMs.mean);
  }

  // Prompts prefilled in one step leave together over one link: each waits for the one
  // before it, so some take longer than their own bytes, none less.
  void aPrefillLinkIsASerialQueue() {
    PdEngine engine(llama8b(), deployment(1, 1, "roce"));
    const BenchRun run = runServingBenchmark(engine, workload(8, std::numeric_limits<double>::infinity()));
    const KvLink& link = kvLinkPreset("roce");
    int numQueued = 0;
    for (const BenchRequestRecord& r : run.report.requests) {
      const double own = kvLinkSeconds(link, r.timeline.kvTransferBytes);
      QVERIFY(*r.timeline.kvTransferTime >= own - 1e-12);
      if (*r.timeline.kvTransferTime > own * 1.5) ++numQueued;
    }
    QVERIFY(numQueued > 0);
  }

  // 1P+1D against two colocated replicas of the same GPU, the same workload through the
  // same runner: both complete it, the replicas share it, no block stays owned.
  void onePlusOneComparesWithTwoColocatedReplicas() {
    const std::vector<SyntheticRequest> w = workload(20, 6);
    PdEngine pd(llama8b(), deployment(1, 1));
    const BenchRun disaggregated = runServingBenchmark(pd, w);
    ReplicatedEngine colocated(llama8b(), simConfig(), 2);
    const BenchRun replicas = runServingBenchmark(colocated, w);
    QCOMPARE(disaggregated.report.completed, 20);
    QCOMPARE(replicas.report.completed, 20);
    for (int i = 0; i < 2; ++i) {
      Engine& e = colocated.replica(i);
      QVERIFY2(!e.steps().empty(), "the least-loaded routing uses both replicas");
      QCOMPARE(e.numFreeKvBlocks(), e.numKvBlocks());
    }
    for (size_t i = 0; i < w.size(); ++i) {
      QCOMPARE(disaggregated.report.requests[i].timeline.numOutputTokens, 20);
      QCOMPARE(replicas.report.requests[i].timeline.numOutputTokens, 20);
      QCOMPARE(replicas.report.requests[i].timeline.kvTransferBytes, int64_t(0));
    }
    QVERIFY(replicas.report.duration > 0 && disaggregated.report.duration > 0);
  }

  void badInstanceCountsAreRefused() {
    auto errorOf = [](const PdConfig& pd) {
      try {
        PdEngine e(llama8b(), pd);
      } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
      }
      return QString();
    };
    QVERIFY(errorOf(deployment(0, 1)).contains("0:1"));
    PdConfig cpu = deployment(2, 1);
    cpu.prefill.executor.backend = cpu.decode.executor.backend = "cpu";
    QVERIFY(errorOf(cpu).contains("cpu backend runs one prefill and one decode"));
  }
};

QTEST_GUILESS_MAIN(TestPdSim)
#include "tst_pd_sim.moc"
