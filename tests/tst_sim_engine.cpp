// The sim backend under the real engine: the KV pool vLLM's sizing gives, a virtual clock
// advanced by exactly the predicted step times (and never by sleeping), deterministic
// runs, requests that run to their output length, EngineLoop holding arrivals planned on
// the virtual clock, calibration's measurements and profile round trip, and bad input
// refused with the field named.
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "common/random_model.h"
#include "engine/bench/bench_runner.h"
#include "engine/bench/calibration.h"
#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/engine_loop.h"
#include "engine/exec/sim/kv_pool.h"
#include "engine/exec/sim/profile_fit.h"
#include "engine/model/model.h"

using namespace lwb;

namespace {

const std::string kShapes = LWB_SOURCE_DIR "/resources/sim-models";

EngineConfig simConfig(const std::string& hardware = "h100-sxm", int tp = 1) {
  EngineConfig c;
  c.executor.backend = "sim";
  c.executor.simHardware = hardware;
  c.executor.tensorParallelSize = tp;
  return c;
}

std::shared_ptr<const Model> shape(const std::string& name) { return loadModelConfigOnly(kShapes + "/" + name); }

WorkloadOptions smallWorkload(double rate) {
  WorkloadOptions w;
  w.numPrompts = 60;
  w.requestRate = rate;
  w.inputLen = 300;
  w.rangeRatio = 0.5;
  w.outputLen = 40;
  w.sharedPrefixLen = 64;
  w.numPrefixGroups = 2;
  w.seed = 7;
  return w;
}

// The message of what `f` throws; fails the test when it does not.
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

class TestSimEngine : public QObject {
  Q_OBJECT
 private slots:
  // vLLM's sizing: memory × utilization − weights − reserve, over one rank's block.
  void kvPoolIsVllmsSizing() {
    struct Case {
      const char* model;
      const char* hw;
      int tp;
    } cases[] = {{"llama-3-8b", "h100-sxm", 1}, {"llama-3-70b", "h100-sxm", 8}, {"llama-3-70b", "a100-80gb", 4}};
    for (const Case& c : cases) {
      const auto model = shape(c.model);
      Engine engine(model, simConfig(c.hw, c.tp));
      const EngineConfig e = engine.effectiveConfig();
      sim::KvPoolInputs in;
      in.maxNumBatchedTokens = e.maxNumBatchedTokens;
      in.maxNumSeqs = e.maxNumSeqs;
      in.maxModelLen = engine.maxModelLen();
      const sim::SimModel m = sim::makeSimModel(model->config, c.tp, "auto", "auto");
      const sim::KvPool pool = sim::sizeKvPool(m, sim::loadHardwareProfile(c.hw), in);
      QCOMPARE(int64_t(engine.numKvBlocks()), pool.numBlocks);
      QVERIFY(engine.deviceInfo().simulatedGpu);
      QCOMPARE(engine.deviceInfo().backend, std::string("sim"));
    }
    // vLLM's defaults for an H100-class device (>= 70 GiB, not an A100), not the CPU's.
    Engine h100(shape("llama-3-8b"), simConfig());
    QCOMPARE(h100.effectiveConfig().maxNumBatchedTokens, 8192);
    QCOMPARE(h100.effectiveConfig().maxNumSeqs, 1024);
  }

  // Every step lasts exactly its predicted time, back to back while busy: the clock is
  // the cost model's, not the host's.
  void clockAdvancesByThePredictedStepTimes() {
    const auto model = shape("llama-3-8b");
    Engine engine(model, simConfig());
    std::vector<sim::StepShape> shapes;
    engine.setStepShapeObserver([&](const sim::StepShape& s) { shapes.push_back(s); });
    for (const SyntheticRequest& r : makeWorkloadFor(smallWorkload(INFINITY), *model))
      engine.addRequest({r.promptTokenIds, r.sampling, 0, "t"});
    QCOMPARE(engine.now(), 0.0);
    while (engine.hasUnfinishedRequests()) engine.step();
    const auto& steps = engine.steps();
    QCOMPARE(steps.size(), shapes.size());
    QVERIFY(steps.size() > 40);
    const sim::SimModel m = sim::makeSimModel(model->config, 1, "auto", "auto");
    const sim::HardwareProfile hw = sim::loadHardwareProfile("h100-sxm");
    double t = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      QCOMPARE(steps[i].startTime, t);
      QCOMPARE(steps[i].duration, sim::predictStep(m, hw, shapes[i]).total() * 1e-3);
      t += steps[i].duration;
    }
    QCOMPARE(engine.now(), t);
  }

  // Arrivals hours apart on the virtual clock: the runner jumps to each (a sleep would
  // outlast the test's time limit), and the report spans the virtual hours.
  void idleTimeIsJumpedNotSlept() {
    const auto model = shape("llama-3-8b");
    Engine engine(model, simConfig());
    WorkloadOptions w = smallWorkload(1.0 / 600);  // one request every ten minutes
    w.numPrompts = 8;
    const BenchRun run = runServingBenchmark(engine, makeWorkloadFor(w, *model));
    QCOMPARE(run.report.completed, 8);
    QVERIFY2(run.report.duration > 600, qPrintable(QString::number(run.report.duration)));
    QVERIFY(run.report.ttftMs.max < 1000);  // nothing queued: each ran alone on an idle engine
  }

  // Idle jumps to arrivals at arbitrary offsets from the run's start: every one lands.
  // This workload once waited for ever: a jump of exactly the wait landed an ulp short
  // of the arrival, and the next jumps were too small to move the clock.
  void everyIdleJumpLandsOnItsArrival() {
    const auto model = loadModelConfigOnly(LWB_SOURCE_DIR "/resources/models/austen-chat-11m");
    Engine engine(model, simConfig("epyc-zen4-2t"));
    WorkloadOptions w;
    w.numPrompts = 48;
    w.requestRate = 1.5;
    w.inputLen = 1024;
    w.outputLen = 32;
    w.ignoreEos = true;
    std::vector<SyntheticRequest> workload = makeWorkloadFor(w, *model);
    clampPromptLengths(workload, engine.maxModelLen() - w.outputLen);
    const BenchRun run = runServingBenchmark(engine, workload);
    QCOMPARE(run.report.completed, 48);
  }

  // Same seed, same knobs: the same report, to the bit (no wall clock anywhere).
  void simulatedRunsAreDeterministic() {
    const auto model = shape("llama-3-70b");
    auto once = [&] {
      EngineConfig c = simConfig("a100-80gb", 4);
      c.numGpuBlocksOverride = 400;  // preemption and eviction happen too
      Engine engine(model, c);
      BenchRun run = runServingBenchmark(engine, makeWorkloadFor(smallWorkload(8), *model));
      return std::make_pair(benchReportJson(run.report).dump(), run.report.numPreemptions);
    };
    const auto [a, preemptions] = once();
    QVERIFY(preemptions > 0);
    QCOMPARE(once().first, a);
  }

  // Stand-in tokens are never a stop token: without ignore_eos every request still
  // produces exactly max_tokens.
  void requestsRunToTheirOutputLength() {
    const auto model = shape("llama-3-8b");
    Engine engine(model, simConfig());
    WorkloadOptions w = smallWorkload(INFINITY);
    w.ignoreEos = false;
    const BenchRun run = runServingBenchmark(engine, makeWorkloadFor(w, *model));
    QCOMPARE(run.report.completed, w.numPrompts);
    for (const auto& r : run.report.requests) QCOMPARE(int(r.outputTokenIds.size()), w.outputLen);
    QCOMPARE(run.report.totalOutputTokens, int64_t(w.numPrompts) * w.outputLen);
  }

  // The window's path: requests planned on the virtual clock are held until it gets
  // there, then timed from their planned arrival.
  void engineLoopHoldsPlannedArrivals() {
    const auto model = shape("llama-3-8b");
    EngineLoop loop(model, simConfig());
    loop.setSimulationSpeed(0);
    RequestInput in;
    in.promptTokenIds.assign(100, 5);
    in.sampling.maxTokens = 8;
    in.arrivalTime = 50.0;
    const RequestId id = loop.submit(in);
    std::optional<RequestTimeline> done;
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                               for (auto& e : loop.drainEvents())
                                 if (auto* f = std::get_if<RequestFinishedEvent>(&e); f && f->timeline.id == id)
                                   done = f->timeline;
                               return done.has_value();
                             }()),
                             30000);
    QCOMPARE(done->arrivalTime, 50.0);
    QVERIFY(done->firstTokenTime && *done->firstTokenTime > 50.0);
    QCOMPARE(done->numOutputTokens, 8);
  }

  // Measured steps of a real engine, fitted into a CPU profile that reads back, and a
  // simulated engine on it has the blocks the CPU backend has.
  void calibrationRoundTrips() {
    QTemporaryDir dir;
    RandomModelSpec spec;
    spec.maxPositionEmbeddings = 256;
    const auto model = loadModel(writeRandomLlamaModel(dir.filePath("m").toStdString(), spec));
    EngineConfig real;
    real.executor.backend = "cpu";
    real.executor.numThreads = 1;
    Engine engine(model, real);
    CalibrationGrid grid;
    grid.prefillRows = {1, 16, 64};
    grid.decodeBatches = {1, 4};
    grid.contexts = {16, 64};
    grid.prefixRows = {8};
    grid.decodeSteps = 4;
    grid.repeats = 1;
    Calibration c = calibrateEngine(engine, grid);
    QVERIFY(c.samples.size() >= 3 + 4 * 4);
    bool overPrefix = false;  // a prefill of its own rows against a cached prefix
    for (const sim::StepSample& s : c.samples) {
      QVERIFY(s.seconds > 0 && s.shape.numTokens() > 0);
      for (const sim::StepSeq& q : s.shape.seqs) overPrefix |= q.newTokens > 1 && q.context >= 48;
    }
    QVERIFY(overPrefix);
    QVERIFY(c.after.median <= c.before.median);
    c.profile.name = "calibrated";
    c.profile.description = "test CPU";
    const std::string path = dir.filePath("calibrated.json").toStdString();
    std::ofstream(path) << sim::hardwareProfileJson(c.profile, "test");
    const sim::HardwareProfile back = sim::loadHardwareProfile(path);
    QVERIFY(back.isCpu());
    QCOMPARE(back.bf16Tflops, c.profile.bf16Tflops);
    QCOMPARE(back.kvMemoryEfficiency, c.profile.kvMemoryEfficiency);
    EngineConfig simulated = real;
    simulated.executor.backend = "sim";
    simulated.executor.simHardware = path;
    Engine sim(model, simulated);
    QCOMPARE(sim.numKvBlocks(), Engine(model, real).numKvBlocks());
    QVERIFY(!sim.deviceInfo().simulatedGpu);
    QCOMPARE(sim.effectiveConfig().maxNumSeqs, engine.effectiveConfig().maxNumSeqs);  // vLLM's CPU defaults
  }

  void badInputNamesTheField() {
    const auto model8b = shape("llama-3-8b");
    QString e = errorOf([&] { Engine(model8b, simConfig("b300")); });
    QVERIFY2(e.contains("sim_hardware b300") && e.contains("h100-sxm"), qPrintable(e));
    e = errorOf([&] { Engine(model8b, simConfig("h100-sxm", 3)); });
    QVERIFY2(e.contains("tensor_parallel_size 3 does not divide num_attention_heads 32"), qPrintable(e));
    e = errorOf([&] { Engine(shape("llama-3-70b"), simConfig("l4", 1)); });
    QVERIFY2(e.contains("does not fit") && e.contains("GiB") && e.contains("tensor_parallel_size"), qPrintable(e));
    EngineConfig spec = simConfig();
    spec.speculative = parseSpeculativeConfig(R"({"method": "ngram", "num_speculative_tokens": 2})");
    e = errorOf([&] { Engine(model8b, spec); });
    QVERIFY2(e.contains(QString::fromUtf8(knob::kSpeculativeConfig.data())), qPrintable(e));
    // A config.json without a field the cost model needs.
    QTemporaryDir dir;
    {
      std::ofstream(dir.filePath("config.json").toStdString())
          << R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32,
                 "intermediate_size": 14336, "vocab_size": 128256})";
    }
    e = errorOf([&] { loadModelConfigOnly(dir.path().toStdString()); });
    QVERIFY2(e.contains("num_attention_heads"), qPrintable(e));
    e = errorOf([&] { loadModelConfigOnly(dir.filePath("nowhere").toStdString()); });
    QVERIFY2(e.contains("config.json"), qPrintable(e));
  }
};

QTEST_APPLESS_MAIN(TestSimEngine)
#include "tst_sim_engine.moc"
