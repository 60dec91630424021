#pragma once
// One run as the workbench keeps and saves it: knob history, workload, requests and
// steps. Bounded while live (an hour of load must not grow without limit); saved to and
// opened from JSON so that two runs can be compared side by side.
#include <deque>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/config/config_json.h"  // the knobs, as saved runs hold them
#include "engine/engine_loop.h"
#include "engine/bench/workload.h"

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
  std::map<RequestId, std::string> tags;  // "chat 1", "load"

  // Keeps the newest `maxRequests` / `maxSteps`.
  void trim(size_t maxRequests, size_t maxSteps);
  void clear();
};

// Headline numbers of a run, named as `vllm bench serve` prints them.
struct RunSummary {
  int completed = 0;
  double duration = 0;  // s, first arrival → last finish
  double requestThroughput = 0, outputThroughput = 0;
  double meanTtftMs = 0, p50TtftMs = 0, p99TtftMs = 0;
  double meanItlMs = 0, p50ItlMs = 0, p99ItlMs = 0;
  double meanTpotMs = 0, p50TpotMs = 0, p99TpotMs = 0;
  double meanE2eMs = 0, p50E2eMs = 0, p99E2eMs = 0;
  double prefixHitRate = 0;  // hit tokens / queried tokens over all steps
};
RunSummary summarizeRun(const RunData& run);

// Per-metric samples in milliseconds over completed (stop/length) requests.
std::vector<double> ttftSamplesMs(const RunData& run);
std::vector<double> itlSamplesMs(const RunData& run);

nlohmann::json timelineToJson(const RequestTimeline& t);
RequestTimeline timelineFromJson(const nlohmann::json& j);
nlohmann::json stepToJson(const StepRecord& s);
StepRecord stepFromJson(const nlohmann::json& j);

nlohmann::json runToJson(const RunData& run);
// Throws lwb::Error naming the field when the document is not a workbench run.
RunData runFromJson(const nlohmann::json& j);

}  // namespace lwb::ui
