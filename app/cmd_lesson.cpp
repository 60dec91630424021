// `llm-workbench lesson`: the guided experiments headless (lessons/lessons.h): `--list`
// prints one lesson a line, its NAME first; `lesson NAME` runs its settings on the engine
// the knobs describe (the real CPU engine, or --backend sim) and prints the finding
// written from the measured numbers, with a line per run.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "app/commands.h"
#include "engine/config/knobs.h"
#include "engine/metrics/export.h"
#include "engine/model/model.h"
#include "lessons/lessons.h"

namespace lwb::app {

namespace {

ArgParser makeParser() {
  std::string list;
  for (const Lesson& l : lessons()) list += "  " + l.name + std::string(18 - std::min<size_t>(17, l.name.size()), ' ') + english(l.question) + "\n";
  ArgParser p("lesson", "llm-workbench lesson (--list | NAME [--model DIR] [--scale X] [--json FILE] [engine knobs])",
              "Runs a guided experiment: a prepared workload under two or a few settings of the engine\n"
              "the knobs describe (the CPU engine, or --" + findKnob(knob::kBackend)->flag +
                  " sim on simulated hardware), then prints\nthe finding written from the measured numbers. "
                  "The lessons:\n" + list);
  p.flag("list", "print the lessons, one a line, NAME first");
  p.option("model", "DIR", "model folder (default: the bundled model; with the sim backend a config.json is enough)");
  p.option("scale", "X", "the workloads' size, 1 = full (about a minute each on a 2-core CPU; default 1)");
  p.option("json", "FILE", "write {\"lesson\", \"question\", \"finding\", \"runs\": [bench reports]}");
  p.flag("quiet", "no progress output");
  p.knobOptions();
  return p;
}

int lesson(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string name;
  if (!args.empty() && args.front().rfind("--", 0) != 0) {
    name = args.front();
    args.erase(args.begin());
  }
  ArgParser p = makeParser();
  if (!p.parse(args)) return 0;
  if (p.has("list")) {
    size_t width = 0;  // the longest name, so the questions line up
    for (const Lesson& l : lessons()) width = std::max(width, l.name.size());
    for (const Lesson& l : lessons()) std::printf("%-*s  %s\n", int(width), l.name.c_str(), english(l.question).c_str());
    return 0;
  }
  if (name.empty()) throw UsageError("give a lesson's NAME (see lesson --list)");
  const Lesson* chosen = nullptr;
  try {
    chosen = &findLesson(name);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  EngineConfig knobs;
  p.applyKnobs(knobs);
  const double scale = p.number("scale", 1.0, 0.01, 100);
  const bool quiet = p.has("quiet");
  const std::string dir = p.has("model") ? *p.value("model") : defaultModelDir();
  const auto model = knobs.executor.backend == "sim" ? loadModelConfigOnly(dir) : loadModel(dir);
  if (!quiet) std::fprintf(stderr, "lesson %s: %s\n", chosen->name.c_str(), english(chosen->question).c_str());
  const std::vector<LessonRun> runs =
      runLesson(*chosen, model, knobs, scale, [&](int done, int total, const std::string& label) {
        if (!quiet && done < total) std::fprintf(stderr, "lesson %s: run %d/%d: %s\n", name.c_str(), done + 1, total, label.c_str());
      });
  std::printf("%-34s %10s %10s %10s %8s %8s\n", "run", "out tok/s", "TTFT p50", "ITL p99", "preempt", "hit %");
  for (const LessonRun& r : runs)
    std::printf("%-34s %10.1f %10.1f %10.2f %8lld %8.1f\n", english(r.setting.label).c_str(), r.report.outputThroughput,
                r.report.ttftMs.median, r.report.itlMs.p99, static_cast<long long>(r.report.numPreemptions),
                r.report.prefixCacheHitRate * 100);
  const std::string finding = findingText(*chosen, runs);
  if (!runs.empty() && runs.front().report.simulated())
    std::printf("SIMULATED on %s: predicted times, not measured\n", runs.front().report.simulatedDevice.c_str());
  std::printf("\n%s\n", finding.c_str());
  if (p.has("json")) writeTextFile(*p.value("json"), lessonJson(*chosen, runs, finding).dump(2) + "\n");
  return 0;
}

}  // namespace

int runLesson(int argc, char** argv) { return runReportingErrors("lesson", lesson, argc, argv); }

}  // namespace lwb::app
