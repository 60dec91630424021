// Every guided lesson (lessons/lessons.h) at full size, one after the other, as the
// window and `llm-workbench lesson NAME` run them: each lesson's runs, its finding and
// its wall time. The lessons are sized for about a minute each on a 2-core CPU; this is
// where that is measured, and where the findings at scale 1 come from (docs/lessons.md).
// Usage: bench_lessons [--scale X] [--backend cpu|sim] [--threads N] [--model DIR]
//        [--sim-hardware NAME] [--only NAME]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "lessons/lessons.h"

using namespace lwb;

namespace {

struct Args {
  double scale = 1;
  std::string backend = "cpu", modelDir, simHardware, only;
  int threads = 0;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    const bool hasValue = i + 1 < argc;
    if (f == "--scale" && hasValue) a.scale = std::atof(argv[++i]);
    else if (f == "--backend" && hasValue) a.backend = argv[++i];
    else if (f == "--threads" && hasValue) a.threads = std::atoi(argv[++i]);
    else if (f == "--model" && hasValue) a.modelDir = argv[++i];
    else if (f == "--sim-hardware" && hasValue) a.simHardware = argv[++i];
    else if (f == "--only" && hasValue) a.only = argv[++i];
    else
      throw Error("bench_lessons: unknown or incomplete option '" + f +
                  "' (expected --scale X, --backend cpu|sim, --threads N, --model DIR, --sim-hardware NAME, "
                  "--only NAME)");
  }
  if (!(a.scale > 0 && a.scale <= 100)) throw Error("bench_lessons: --scale must be in (0, 100]");
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parseArgs(argc, argv);
    EngineConfig base;
    base.executor.backend = a.backend;
    base.executor.numThreads = a.threads;
    if (!a.simHardware.empty()) base.executor.simHardware = a.simHardware;
    const bool sim = a.backend == "sim";
    const std::string dir =
        !a.modelDir.empty() ? a.modelDir : sim ? LWB_SOURCE_DIR "/resources/sim-models/llama-3-8b" : defaultModelDir();
    const auto model = sim ? loadModelConfigOnly(dir) : loadModel(dir);
    std::printf("bench_lessons: model %s, backend %s, threads %d, scale %g\n", dir.c_str(), a.backend.c_str(),
                a.threads, a.scale);
    double total = 0;
    for (const Lesson& l : lessons()) {
      if (!a.only.empty() && l.name != a.only) continue;
      std::printf("\n== %s: %s\n", l.name.c_str(), english(l.question).c_str());
      if (const Phrase why = unsupportedReason(l, base); !why.empty()) {
        std::printf("  skipped: %s\n", english(why).c_str());
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<LessonRun> runs = runLesson(l, model, base, a.scale);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      total += seconds;
      for (const LessonRun& r : runs)
        std::printf("  %-56s out %8.1f tok/s  TTFT p50 %8.1f ms  ITL p99 %7.2f ms\n", english(r.setting.label).c_str(),
                    r.report.outputThroughput, r.report.ttftMs.median, r.report.itlMs.p99);
      std::printf("  wall time %.2f s\n  %s\n", seconds, findingText(l, runs).c_str());
    }
    std::printf("\nall lessons: %.2f s\n", total);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_lessons: %s\n", e.what());
    return 1;
  }
}
