// The simulator against the real engine on this machine: calibrate the CPU backend
// (llm-workbench calibrate's grid and fit), then for three workloads (chat-like,
// long-prompt, shared-prefix) at three request rates each, run the workload for real and
// on --backend sim with the fitted profile, same seed and knobs, and print every cell:
// output throughput, median and p90 TTFT and ITL, and the step-time error (the predicted
// time of each real step's shape against its measured duration). Targets (issue 41):
// throughput and medians within 5 %, p90 within 10 %, median step error within 5 %.
// Usage: bench_sim_vs_real [--profile FILE] [--quick] [--threads N] [--model DIR]
//   --profile: skip calibration and use this profile (written by calibrate or by a
//   previous run, which leaves it in bench/sim-cpu-profile.json of the build tree).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "engine/bench/bench_runner.h"
#include "engine/bench/calibration.h"
#include "engine/common/error.h"
#include "engine/engine.h"
#include "engine/exec/sim/hardware_profile.h"
#include "engine/exec/sim/profile_fit.h"
#include "engine/exec/sim/sim_executor.h"
#include "engine/metrics/export.h"
#include "engine/metrics/stats.h"
#include "engine/model/model.h"

using namespace lwb;

namespace {

struct Args {
  std::string profile, modelDir;
  bool quick = false;
  int threads = 2;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    const bool hasValue = i + 1 < argc;
    if (f == "--quick") a.quick = true;
    else if (f == "--profile" && hasValue) a.profile = argv[++i];
    else if (f == "--model" && hasValue) a.modelDir = argv[++i];
    else if (f == "--threads" && hasValue) a.threads = std::atoi(argv[++i]);
    else
      throw Error("bench_sim_vs_real: unknown or incomplete option '" + f +
                  "' (expected --profile FILE, --quick, --threads N, --model DIR)");
  }
  return a;
}

struct Workload {
  const char* name;
  WorkloadOptions options;
  std::vector<double> rates;
};

std::vector<Workload> workloads(bool quick) {
  WorkloadOptions chat;
  chat.numPrompts = quick ? 40 : 100;
  chat.inputLen = 128;
  chat.rangeRatio = 0.5;
  chat.outputLen = 128;
  chat.ignoreEos = true;
  WorkloadOptions longPrompt;
  longPrompt.numPrompts = quick ? 20 : 48;
  longPrompt.inputLen = 1024;
  longPrompt.outputLen = 32;
  longPrompt.ignoreEos = true;
  WorkloadOptions shared;
  shared.numPrompts = quick ? 40 : 100;
  shared.sharedPrefixLen = 512;
  shared.numPrefixGroups = 4;
  shared.inputLen = 64;
  shared.outputLen = 64;
  shared.ignoreEos = true;
  return {{"chat", chat, {5, 15, 30}}, {"long-prompt", longPrompt, {1.5, 4, 8}}, {"shared-prefix", shared, {5, 12, 25}}};
}

struct Measured {
  BenchReport report;
  std::vector<double> stepErrors;  // |predicted / measured − 1| of each real step
  int numBlocks = 0;
};

Measured run(const std::shared_ptr<const Model>& model, const EngineConfig& knobs, const WorkloadOptions& w,
             const sim::SimModel* simModel, const sim::HardwareProfile* profile) {
  Engine engine(model, knobs);
  std::vector<sim::StepShape> shapes;
  engine.setStepShapeObserver([&](const sim::StepShape& s) { shapes.push_back(s); });
  std::vector<SyntheticRequest> workload = makeWorkloadFor(w, *model);
  clampPromptLengths(workload, engine.maxModelLen() - w.outputLen);
  BenchRun r = runServingBenchmark(engine, workload);
  Measured m;
  m.report = std::move(r.report);
  m.numBlocks = engine.numKvBlocks();
  if (simModel) {  // the run's steps are the last ones observed (after the warm-up's)
    const size_t first = shapes.size() - r.steps.size();
    for (size_t i = 0; i < r.steps.size(); ++i)
      m.stepErrors.push_back(
          std::abs(sim::predictStep(*simModel, *profile, shapes[first + i]).total() * 1e-3 / r.steps[i].duration - 1));
  }
  return m;
}

double relErr(double sim, double real) { return real != 0 ? sim / real - 1 : 0; }

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parseArgs(argc, argv);
    const std::string dir = a.modelDir.empty() ? defaultModelDir() : a.modelDir;
    const auto model = loadModel(dir);
    EngineConfig real;
    real.executor.backend = "cpu";
    real.executor.numThreads = a.threads;

    std::string profilePath = a.profile;
    if (profilePath.empty()) {
      Engine engine(model, real);
      std::fprintf(stderr, "calibrating on %s ...\n", engine.deviceInfo().name.c_str());
      const auto t0 = std::chrono::steady_clock::now();
      Calibration c = calibrateEngine(engine, defaultCalibrationGrid(engine, a.quick));
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("Calibration (llm-workbench calibrate's %s grid): %d steps in %.0f s, fitted step-time error "
                  "median %.1f %%, p90 %.1f %%\n",
                  a.quick ? "quick" : "full", c.after.n, seconds, c.after.median * 100, c.after.p90 * 100);
      c.profile.name = "sim-cpu-profile";
      c.profile.description = engine.deviceInfo().name;
      profilePath = std::string(LWB_BINARY_DIR) + "/bench/sim-cpu-profile.json";
      writeTextFile(profilePath, sim::hardwareProfileJson(c.profile, "bench_sim_vs_real's calibration"));
    }
    const sim::HardwareProfile profile = sim::loadHardwareProfile(profilePath);
    const sim::SimModel simModel = simModelFor(model->config, real.executor, profile);
    EngineConfig simulated = real;
    simulated.executor.backend = "sim";
    simulated.executor.simHardware = profilePath;

    std::printf("\nSimulated (profile %s) against real (%s, %d threads); error = sim / real - 1\n",
                profilePath.c_str(), profile.description.c_str(), a.threads);
    std::printf("%-14s %5s %6s | %8s %8s %6s | %8s %8s %6s | %8s %8s %6s | %7s %7s %6s | %7s %7s %6s | %6s %6s\n",
                "workload", "rate", "blocks", "tok/s", "sim", "err", "TTFTmed", "sim", "err", "TTFTp90", "sim", "err",
                "ITLmed", "sim", "err", "ITLp90", "sim", "err", "step50", "step90");
    std::vector<double> worstMedian, worstP90, stepMedians;
    for (const Workload& w : workloads(a.quick))
      for (const double rate : w.rates) {
        WorkloadOptions o = w.options;
        o.requestRate = rate;
        const Measured r = run(model, real, o, &simModel, &profile);
        const Measured s = run(model, simulated, o, nullptr, nullptr);
        const BenchReport &R = r.report, &S = s.report;
        const Summary steps = summarize(r.stepErrors);
        const double eTok = relErr(S.outputThroughput, R.outputThroughput);
        const double eTtft50 = relErr(S.ttftMs.median, R.ttftMs.median), eTtft90 = relErr(S.ttftMs.p90, R.ttftMs.p90);
        const double eItl50 = relErr(S.itlMs.median, R.itlMs.median), eItl90 = relErr(S.itlMs.p90, R.itlMs.p90);
        std::printf("%-14s %5.1f %6s | %8.1f %8.1f %+5.1f%% | %8.1f %8.1f %+5.1f%% | %8.1f %8.1f %+5.1f%% | %7.2f %7.2f "
                    "%+5.1f%% | %7.2f %7.2f %+5.1f%% | %5.1f%% %5.1f%%\n",
                    w.name, rate, r.numBlocks == s.numBlocks ? "same" : "DIFF", R.outputThroughput, S.outputThroughput,
                    eTok * 100, R.ttftMs.median, S.ttftMs.median, eTtft50 * 100, R.ttftMs.p90, S.ttftMs.p90,
                    eTtft90 * 100, R.itlMs.median, S.itlMs.median, eItl50 * 100, R.itlMs.p90, S.itlMs.p90, eItl90 * 100,
                    steps.median * 100, steps.p90 * 100);
        std::fflush(stdout);
        for (double e : {eTok, eTtft50, eItl50}) worstMedian.push_back(std::abs(e));
        for (double e : {eTtft90, eItl90}) worstP90.push_back(std::abs(e));
        stepMedians.push_back(steps.median);
      }
    auto within = [](const std::vector<double>& v, double bound) {
      int n = 0;
      for (double x : v) n += x <= bound ? 1 : 0;
      return n;
    };
    std::printf("\nWithin target: throughput and medians %d/%zu (5 %%), p90 %d/%zu (10 %%), step-time median %d/%zu (5 %%)\n",
                within(worstMedian, 0.05), worstMedian.size(), within(worstP90, 0.10), worstP90.size(),
                within(stepMedians, 0.05), stepMedians.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_sim_vs_real: %s\n", e.what());
    return 1;
  }
}
