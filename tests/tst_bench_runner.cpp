// The in-process benchmark runner on a small random model (no default model needed):
// every request completes with its exact output length, times are consistent with the
// workload's arrivals, shared prefixes hit the cache only when caching is on, and the
// exports of a real run are well-formed.
#include <QtTest>

#include <QTemporaryDir>
#include <nlohmann/json.hpp>

#include "common/random_model.h"
#include "engine/bench/bench_runner.h"
#include "engine/common/json.h"
#include "engine/engine.h"
#include "engine/metrics/export.h"
#include "engine/metrics/trace.h"
#include "engine/model/model.h"

using namespace lwb;

namespace {

WorkloadOptions sharedPrefixWorkload() {
  WorkloadOptions o;
  o.numPrompts = 12;
  o.requestRate = 200;  // arrivals spread over ~60 ms
  o.inputLen = 8;
  o.rangeRatio = 0.5;
  o.outputLen = 5;
  o.sharedPrefixLen = 48;
  o.numPrefixGroups = 2;
  o.ignoreEos = true;
  o.seed = 11;
  return o;
}

}  // namespace

class TestBenchRunner : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    RandomModelSpec spec;
    spec.vocabSize = tinyTokenizerVocabSize();  // every sampled id must detokenize
    model_ = loadModel(writeRandomLlamaModel(dir_.filePath("model").toStdString(), spec));
  }

  void everyRequestCompletes() {
    EngineConfig config;
    config.executor.backend = "cpu";
    config.executor.numThreads = 1;
    config.maxNumBatchedTokens = 64;  // several chunks per prompt
    config.maxNumSeqs = 64;           // vLLM: at most the budget
    Engine engine(model_, config);
    const auto workload = makeWorkload(sharedPrefixWorkload(), model_->tokenizer->ordinaryIds(),
                                       model_->tokenizer->bosId());
    int lastProgress = 0;
    const BenchRun run = runServingBenchmark(engine, workload, [&](int done, int total) {
      QCOMPARE(total, 12);
      QVERIFY(done >= lastProgress);
      lastProgress = done;
    });
    QCOMPARE(lastProgress, 12);
    const BenchReport& r = run.report;
    QCOMPARE(r.completed, 12);
    QCOMPARE(r.numFailed, 0);
    QCOMPARE(r.totalOutputTokens, int64_t(12 * 5));
    QVERIFY(r.duration > 0);
    QVERIFY(!run.steps.empty());
    QCOMPARE(int(r.requests.size()), 12);
    const double t0 = r.requests[0].timeline.arrivalTime;
    for (size_t i = 0; i < r.requests.size(); ++i) {
      const auto& t = r.requests[i].timeline;
      QCOMPARE(int(r.requests[i].outputTokenIds.size()), 5);
      QCOMPARE(t.numPromptTokens, int(workload[i].promptTokenIds.size()));
      QVERIFY(std::abs(t.arrivalTime - t0 - workload[i].arrivalTime) < 1e-9);  // scheduled arrival
      QVERIFY(*t.firstScheduledTime >= t.arrivalTime);
      QVERIFY(*t.ttft() > 0);
      QCOMPARE(int(t.itls().size()), 4);
    }
    QVERIFY(r.prefixCacheHitRate > 0.2);  // later prompts of a group reuse its prefix
    QVERIFY(r.maxKvCacheUsage > 0 && r.maxKvCacheUsage <= 1);

    // Exports of a real run are well-formed.
    std::vector<RequestTimeline> timelines;
    for (const auto& req : r.requests) timelines.push_back(req.timeline);
    const auto trace = lwb::parseJson(chromeTrace(timelines, run.steps).dump());
    QVERIFY(trace["traceEvents"].size() > run.steps.size());
    QCOMPARE(lwb::parseJson(benchReportJson(r).dump())["completed"].get<int>(), 12);
    const std::string csv = stepsCsv(run.steps);
    QCOMPARE(int(std::count(csv.begin(), csv.end(), '\n')), 1 + int(run.steps.size()));
  }

  void noHitsWithoutPrefixCaching() {
    EngineConfig config;
    config.executor.backend = "cpu";
    config.executor.numThreads = 1;
    config.enablePrefixCaching = false;
    Engine engine(model_, config);
    const auto workload = makeWorkload(sharedPrefixWorkload(), model_->tokenizer->ordinaryIds(),
                                       model_->tokenizer->bosId());
    const BenchReport r = runServingBenchmark(engine, workload).report;
    QCOMPARE(r.completed, 12);
    QCOMPARE(r.prefixHitTokens, int64_t(0));
    QCOMPARE(r.prefixCacheHitRate, 0.0);
  }

  // The cancel flag, raised once the first request finished, ends the run between two
  // steps with BenchCancelled; the engine stays usable.
  void cancelStopsTheRun() {
    EngineConfig config;
    config.executor.backend = "cpu";
    config.executor.numThreads = 1;
    Engine engine(model_, config);
    const auto workload = makeWorkload(sharedPrefixWorkload(), model_->tokenizer->ordinaryIds(),
                                       model_->tokenizer->bosId());
    std::atomic<bool> cancel{false};
    int lastDone = 0;
    auto raise = [&](int done, int) {
      lastDone = done;
      cancel = true;
    };
    QVERIFY_THROWS_EXCEPTION(BenchCancelled, runServingBenchmark(engine, workload, raise, {0, &cancel}));
    QVERIFY(lastDone >= 1 && lastDone < 12);
    cancel = false;
    QCOMPARE(runServingBenchmark(engine, workload, {}, {0, &cancel}).report.completed, 12);
  }

  // Greedy outputs do not depend on the schedule: the same workload under a tiny token
  // budget and a single sequence at a time produces the same tokens.
  void outputsIndependentOfKnobs() {
    auto runWith = [&](int budget, int seqs) {
      EngineConfig config;
      config.executor.backend = "cpu";
      config.executor.numThreads = 1;
      config.maxNumBatchedTokens = budget;
      config.maxNumSeqs = seqs;
      Engine engine(model_, config);
      WorkloadOptions o = sharedPrefixWorkload();
      o.numPrompts = 4;
      o.requestRate = std::numeric_limits<double>::infinity();
      return runServingBenchmark(engine, makeWorkload(o, model_->tokenizer->ordinaryIds(), model_->tokenizer->bosId()))
          .report;
    };
    const BenchReport a = runWith(2048, 128), b = runWith(32, 1);
    for (size_t i = 0; i < a.requests.size(); ++i) QCOMPARE(a.requests[i].outputTokenIds, b.requests[i].outputTokenIds);
  }

 private:
  QTemporaryDir dir_;
  std::shared_ptr<const Model> model_;
};

QTEST_GUILESS_MAIN(TestBenchRunner)
#include "tst_bench_runner.moc"
