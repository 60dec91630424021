#pragma once
// The guided experiments (docs/lessons.md): each lesson asks one question about serving,
// runs a prepared workload under two or a few settings of the engine in use (one fresh
// Engine per run, bench's runner: the real CPU engine, or a simulated GPU) and writes its
// finding from the measured numbers: what changed, by how much, why, and which chart
// shows it. When the expected effect did not happen, the finding says so. Questions,
// labels and findings are phrases (phrase.h): English on the command line, translated in
// the window.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/bench/bench_report.h"
#include "engine/bench/workload.h"
#include "engine/config/engine_config.h"
#include "engine/pd_engine.h"
#include "lessons/phrase.h"

namespace lwb {

struct Model;

// One run of a lesson: a label ("max_num_seqs 4"), the knobs and the workload. With `pd`
// the run is on a prefill/decode pair (PdEngine) instead of one engine; `knobs` then
// describes the pair (its JSON config) and the window cannot show it live.
struct LessonSetting {
  Phrase label;
  EngineConfig knobs;
  WorkloadOptions workload;
  std::string goodput;  // vLLM's --goodput syntax, when the lesson judges an SLO ("" = none)
  std::optional<PdConfig> pd;
};

struct LessonRun {
  LessonSetting setting;
  BenchReport report;
  std::vector<StepRecord> steps;
  int numKvBlocks = 0;  // of the run's engine (the decode instance's for a pair)
  int blockSize = 16;
};

struct Lesson {
  std::string name;  // what `llm-workbench lesson NAME` takes
  Phrase question;   // one line
  // The runs, from the knobs of the engine in use, at `scale` (1: the full size, about a
  // minute on a 2-core CPU; tests run less). Knobs are named through the knob table.
  std::function<std::vector<LessonSetting>(const EngineConfig& base, double scale)> settings;
  // The finding, from the runs of `settings` in order.
  std::function<Phrase(const std::vector<LessonRun>& runs)> finding;
  // Why the lesson cannot run on the engine `base` describes (empty: it can), so that it
  // says so instead of measuring something else; null when every engine can run it.
  std::function<Phrase(const EngineConfig& base)> unsupported;
};

// In the order of issue 45's list.
const std::vector<Lesson>& lessons();
// Throws lwb::Error naming the lesson and listing the names when there is none.
const Lesson& findLesson(const std::string& name);
// Empty when `lesson` can run on `base`; otherwise why not (Lesson::unsupported).
Phrase unsupportedReason(const Lesson& lesson, const EngineConfig& base);
// The finding in English (the command line, the JSON, the tests).
std::string findingText(const Lesson& lesson, const std::vector<LessonRun>& runs);

// done of total runs, and the label of the one starting.
using LessonProgress = std::function<void(int done, int total, const std::string& label)>;
// Runs every setting on `model`; `cancel` (when set) stops between runs (the finished
// ones are returned). Throws lwb::Error when the lesson cannot run on `base`
// (unsupportedReason) or a run's knobs are refused.
std::vector<LessonRun> runLesson(const Lesson& lesson, const std::shared_ptr<const Model>& model,
                                 const EngineConfig& base, double scale, const LessonProgress& progress = {},
                                 const std::atomic<bool>* cancel = nullptr);
// One setting on a fresh engine (or pair); throws BenchCancelled when `cancel` turns true
// during the run. The window runs a pair's setting through it, off the GUI thread.
LessonRun runLessonSetting(const LessonSetting& setting, const std::shared_ptr<const Model>& model,
                           const std::atomic<bool>* cancel = nullptr);

// {"lesson", "question", "finding", "runs": [each run's bench report JSON, its label in "label"]}.
nlohmann::json lessonJson(const Lesson& lesson, const std::vector<LessonRun>& runs, const std::string& finding);

}  // namespace lwb
