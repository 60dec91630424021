#pragma once
// One run as the workbench keeps and saves it: knob history, workload, requests and
// steps. Bounded while live (an hour of load must not grow without limit); saved to and
// opened from JSON so that two runs can be compared side by side.
#include <deque>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/bench/bench_report.h"
#include "engine/bench/workload.h"
#include "engine/config/config_json.h"  // the knobs, as saved runs hold them
#include "engine/engine_loop.h"

namespace lwb::ui {

struct KnobChange {
  double time = 0;
  std::string description;
  EngineConfig config;  // in force after the change
};

struct RunData {
  std::string modelDir;
  std::string device;
  EngineConfig initialConfig;
  std::vector<KnobChange> knobChanges;
  bool hasWorkload = false;
  WorkloadOptions workload;
  std::deque<RequestTimeline> requests;  // finished, in finish order
  std::deque<StepRecord> steps;

  // Keeps the newest `maxRequests` / `maxSteps`.
  void trim(size_t maxRequests, size_t maxSteps);
  void clear();
};

// The run's headline numbers, as `llm-workbench bench` reports them (completed =
// stop|length); duration = first arrival → last finish of the completed requests.
BenchReport summarizeRun(const RunData& run);

// Per-metric samples in milliseconds over every recorded request (aborted ones too, as
// vLLM's histograms), for the latency table and CDFs.
std::vector<double> ttftSamplesMs(const RunData& run);
std::vector<double> itlSamplesMs(const RunData& run);

// Requests and steps in the engine's one record encoding (engine/metrics/record_json.h);
// version 2. Version 1 files (steps as arrays) still open.
nlohmann::json runToJson(const RunData& run);
// Throws lwb::Error naming the field when the document is not a workbench run. A
// `bench --json` or `bench --endpoint --json` file opens too (runFromBenchJson), so
// bench runs, remote ones included, compare beside the window's runs.
RunData runFromJson(const nlohmann::json& j);
// The requests of a bench JSON document as timelines: arrival_time (0 in files from
// before it was saved), queue_ms, ttft_ms, itl_ms and e2el_ms give back the stamps each
// request's metrics were computed from; "config" gives the workload and the model.
RunData runFromBenchJson(const nlohmann::json& j);

}  // namespace lwb::ui
