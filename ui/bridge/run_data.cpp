#include "ui/bridge/run_data.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/metrics/record_json.h"

namespace lwb::ui {

using nlohmann::json;

void RunData::trim(size_t maxRequests, size_t maxSteps) {
  while (requests.size() > maxRequests) requests.pop_front();
  while (steps.size() > maxSteps) steps.pop_front();
}

void RunData::clear() {
  modelDir.clear();
  device.clear();
  initialConfig = EngineConfig{};
  knobChanges.clear();
  hasWorkload = false;
  workload = WorkloadOptions{};
  requests.clear();
  steps.clear();
}

namespace {
template <typename F>
std::vector<double> samplesMs(const RunData& run, F metric) {
  std::vector<double> out;
  for (const auto& t : run.requests)
    if (t.recorded())
      if (auto v = metric(t)) out.push_back(*v * 1000.0);
  return out;
}
}  // namespace

std::vector<double> ttftSamplesMs(const RunData& run) {
  return samplesMs(run, [](const RequestTimeline& t) { return t.ttft(); });
}

std::vector<double> itlSamplesMs(const RunData& run) {
  std::vector<double> out;
  for (const auto& t : run.requests)
    if (t.recorded())
      for (double g : t.itls()) out.push_back(g * 1000.0);
  return out;
}

BenchReport summarizeRun(const RunData& run) {
  std::vector<BenchRequestRecord> records;
  records.reserve(run.requests.size());
  double first = 1e300, last = -1e300;
  for (const auto& t : run.requests) {
    records.push_back({t, {}});
    if (!t.completed()) continue;
    first = std::min(first, t.arrivalTime);
    if (auto e = t.e2e()) last = std::max(last, t.arrivalTime + *e);
  }
  BenchReport r = makeBenchReport(std::move(records), {}, last > first ? last - first : 0.0);
  for (const StepRecord& s : run.steps) addStep(r, s);
  return r;
}

namespace {
WorkloadOptions workloadFromJson(const json& j) {
  WorkloadOptions w;
  w.numPrompts = j.value("num_prompts", w.numPrompts);
  const json& rate = j.value("request_rate", json("inf"));
  w.requestRate = rate.is_string() ? std::numeric_limits<double>::infinity() : rate.get<double>();
  w.inputLen = j.value("input_len", w.inputLen);
  w.rangeRatio = j.value("range_ratio", w.rangeRatio);
  w.outputLen = j.value("output_len", w.outputLen);
  w.sharedPrefixLen = j.value("shared_prefix_len", w.sharedPrefixLen);
  w.numPrefixGroups = j.value("num_prefix_groups", w.numPrefixGroups);
  w.ignoreEos = j.value("ignore_eos", w.ignoreEos);
  w.temperature = j.value("temperature", w.temperature);
  w.seed = j.value("seed", w.seed);
  return w;
}
}  // namespace

json runToJson(const RunData& run) {
  json j{{"format", "llm-workbench-run"}, {"version", 2}, {"model_dir", run.modelDir},
         {"device", run.device}, {"initial_config", configToJson(run.initialConfig)}};
  j["knob_changes"] = json::array();
  for (const auto& k : run.knobChanges)
    j["knob_changes"].push_back({{"time", k.time}, {"description", k.description}, {"config", configToJson(k.config)}});
  j["workload"] = run.hasWorkload ? workloadJson(run.workload) : json(nullptr);
  j["requests"] = json::array();
  for (const auto& t : run.requests) {
    json r = timelineToJson(t);
    if (!t.tag.empty()) r["tag"] = t.tag;
    j["requests"].push_back(std::move(r));
  }
  j["steps"] = json::array();
  for (const auto& s : run.steps) j["steps"].push_back(stepToJson(s));
  return j;
}

namespace {

std::optional<double> secondsOf(const json& r, const char* msKey) {
  if (!r.contains(msKey) || !r[msKey].is_number()) return std::nullopt;
  return r[msKey].get<double>() / 1000.0;
}

FinishReason finishReasonNamed(const std::string& name) {
  for (int i = 0; i < kNumFinishReasons; ++i)
    if (finishReasonName(FinishReason(i)) == name) return FinishReason(i);
  return FinishReason::None;
}

RequestTimeline benchRequestTimeline(const json& r, RequestId id) {
  RequestTimeline t;
  t.id = id;
  t.arrivalTime = r.value("arrival_time", 0.0);
  t.numPromptTokens = r.value("prompt_len", 0);
  t.numOutputTokens = r.value("output_len", 0);
  t.numCachedPromptTokens = r.value("cached_tokens", 0);
  t.prefixMiss = prefixMissFromJson(r);  // bench records carry missed_by_reason since the reasons
  t.numPreemptions = r.value("num_preemptions", 0);
  t.finishReason = finishReasonNamed(r.value("finish_reason", std::string()));
  t.error = r.value("error", std::string());
  if (auto q = secondsOf(r, "queue_ms")) t.firstScheduledTime = t.arrivalTime + *q;
  if (auto ttft = secondsOf(r, "ttft_ms")) {
    t.firstTokenTime = t.arrivalTime + *ttft;
    t.tokenTimes.push_back(*t.firstTokenTime);
    for (double gapMs : r.value("itl_ms", std::vector<double>{})) t.tokenTimes.push_back(t.tokenTimes.back() + gapMs / 1000.0);
  }
  if (auto e2e = secondsOf(r, "e2el_ms")) t.finishTime = t.arrivalTime + *e2e;
  return t;
}

std::string benchDevice(const json& config) {
  if (config.contains("device") && config["device"].is_string()) return config["device"];
  if (config.contains("endpoint") && config["endpoint"].is_string())
    return "remote: " + config["endpoint"].get<std::string>() + " (" + config.value("server_kind", std::string("server")) + ")";
  return {};
}

}  // namespace

RunData runFromBenchJson(const json& j) {
  check(j.is_object() && j.contains("completed") && j.contains("requests") && j["requests"].is_array(),
        "bench JSON: expected \"completed\" and a \"requests\" array");
  RunData run;
  try {
    const json config = j.value("config", json::object());
    if (config.contains("model") && config["model"].is_string()) run.modelDir = config["model"];
    run.device = benchDevice(config);
    if (config.contains("num_prompts")) {
      run.hasWorkload = true;
      run.workload = workloadFromJson(config);
    }
    RequestId id = 0;
    for (const auto& r : j["requests"]) run.requests.push_back(benchRequestTimeline(r, id++));
  } catch (const json::exception& e) {
    throw Error(std::string("bench JSON: malformed field: ") + e.what());
  }
  return run;
}

RunData runFromJson(const json& j) {
  if (j.is_object() && !j.contains("format") && j.contains("completed")) return runFromBenchJson(j);
  check(j.is_object() && j.value("format", std::string()) == "llm-workbench-run",
        "run file: \"format\" must be \"llm-workbench-run\"");
  RunData run;
  try {
    run.modelDir = j.value("model_dir", std::string());
    run.device = j.value("device", std::string());
    if (j.contains("initial_config")) run.initialConfig = configFromJson(j["initial_config"]);
    for (const auto& k : j.value("knob_changes", json::array()))
      run.knobChanges.push_back({k.value("time", 0.0), k.value("description", std::string()),
                                 configFromJson(k.value("config", json::object()))});
    if (j.contains("workload") && j["workload"].is_object()) {
      run.hasWorkload = true;
      run.workload = workloadFromJson(j["workload"]);
    }
    for (const auto& r : j.value("requests", json::array())) {
      run.requests.push_back(timelineFromJson(r));
      if (r.contains("tag")) run.requests.back().tag = r["tag"].get<std::string>();
    }
    for (const auto& s : j.value("steps", json::array())) run.steps.push_back(stepFromJson(s));
  } catch (const json::exception& e) {
    throw Error(std::string("run file: malformed field: ") + e.what());
  }
  return run;
}

}  // namespace lwb::ui
