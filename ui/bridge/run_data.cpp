#include "ui/bridge/run_data.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/metrics/stats.h"

namespace lwb::ui {

using nlohmann::json;

void RunData::trim(size_t maxRequests, size_t maxSteps) {
  while (requests.size() > maxRequests) {
    tags.erase(requests.front().id);
    requests.pop_front();
  }
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
  tags.clear();
}

namespace {
bool completed(const RequestTimeline& t) {
  return t.finishReason == FinishReason::Stop || t.finishReason == FinishReason::Length;
}
// vLLM records every request that reached the engine and finished, aborted ones
// included (a rejected request never ran); each metric is defined where it applies.
bool recorded(const RequestTimeline& t) {
  return t.finishReason != FinishReason::None && t.finishReason != FinishReason::Rejected;
}
template <typename F>
std::vector<double> samplesMs(const RunData& run, F metric) {
  std::vector<double> out;
  for (const auto& t : run.requests)
    if (recorded(t))
      if (auto v = metric(t)) out.push_back(*v * 1000.0);
  return out;
}
void fill(const std::vector<double>& v, double* mean, double* p50, double* p99) {
  const Summary s = summarize(v);
  *mean = s.mean;
  *p50 = s.median;
  *p99 = s.p99;
}
}  // namespace

std::vector<double> ttftSamplesMs(const RunData& run) {
  return samplesMs(run, [](const RequestTimeline& t) { return t.ttft(); });
}

std::vector<double> itlSamplesMs(const RunData& run) {
  std::vector<double> out;
  for (const auto& t : run.requests)
    if (recorded(t))
      for (double g : t.itls()) out.push_back(g * 1000.0);
  return out;
}

RunSummary summarizeRun(const RunData& run) {
  RunSummary s;
  double first = 1e300, last = -1e300;
  long long outTokens = 0;
  for (const auto& t : run.requests) {
    if (!completed(t)) continue;
    ++s.completed;
    outTokens += t.numOutputTokens;
    first = std::min(first, t.arrivalTime);
    if (auto e = t.e2e()) last = std::max(last, t.arrivalTime + *e);
  }
  if (s.completed > 0 && last > first) {
    s.duration = last - first;
    s.requestThroughput = s.completed / s.duration;
    s.outputThroughput = double(outTokens) / s.duration;
  }
  fill(ttftSamplesMs(run), &s.meanTtftMs, &s.p50TtftMs, &s.p99TtftMs);
  fill(itlSamplesMs(run), &s.meanItlMs, &s.p50ItlMs, &s.p99ItlMs);
  fill(samplesMs(run, [](const RequestTimeline& t) { return t.tpot(); }), &s.meanTpotMs, &s.p50TpotMs,
       &s.p99TpotMs);
  fill(samplesMs(run, [](const RequestTimeline& t) { return t.e2e(); }), &s.meanE2eMs, &s.p50E2eMs,
       &s.p99E2eMs);
  int64_t q = 0, h = 0;
  for (const auto& st : run.steps) {
    q += st.prefixQueryTokens;
    h += st.prefixHitTokens;
  }
  s.prefixHitRate = q > 0 ? double(h) / double(q) : 0.0;
  return s;
}

namespace {
json optional(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
std::optional<double> optionalFrom(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<double>();
}
FinishReason finishReasonFrom(const std::string& s) {
  for (auto r : {FinishReason::Stop, FinishReason::Length, FinishReason::Abort, FinishReason::Error,
                 FinishReason::Rejected})
    if (finishReasonName(r) == s) return r;
  return FinishReason::None;
}
}  // namespace

json timelineToJson(const RequestTimeline& t) {
  return json{{"id", t.id},
              {"priority", t.priority},
              {"num_prompt_tokens", t.numPromptTokens},
              {"num_output_tokens", t.numOutputTokens},
              {"num_cached_prompt_tokens", t.numCachedPromptTokens},
              {"num_preemptions", t.numPreemptions},
              {"arrival_time", t.arrivalTime},
              {"first_scheduled_time", optional(t.firstScheduledTime)},
              {"first_token_time", optional(t.firstTokenTime)},
              {"finish_time", optional(t.finishTime)},
              {"token_times", t.tokenTimes},
              {"preemption_times", t.preemptionTimes},
              {"finish_reason", finishReasonName(t.finishReason)},
              {"error", t.error}};
}

RequestTimeline timelineFromJson(const json& j) {
  RequestTimeline t;
  t.id = j.at("id").get<RequestId>();
  t.priority = j.value("priority", 0);
  t.numPromptTokens = j.value("num_prompt_tokens", 0);
  t.numOutputTokens = j.value("num_output_tokens", 0);
  t.numCachedPromptTokens = j.value("num_cached_prompt_tokens", 0);
  t.numPreemptions = j.value("num_preemptions", 0);
  t.arrivalTime = j.value("arrival_time", 0.0);
  t.firstScheduledTime = optionalFrom(j, "first_scheduled_time");
  t.firstTokenTime = optionalFrom(j, "first_token_time");
  t.finishTime = optionalFrom(j, "finish_time");
  t.tokenTimes = j.value("token_times", std::vector<double>{});
  t.preemptionTimes = j.value("preemption_times", std::vector<double>{});
  t.finishReason = finishReasonFrom(j.value("finish_reason", std::string()));
  t.error = j.value("error", std::string());
  return t;
}

json stepToJson(const StepRecord& s) {
  return json::array({s.step, s.startTime, s.duration, s.numPrefillTokens, s.numDecodeTokens,
                      s.numScheduledSeqs, s.numRunning, s.numWaiting, s.numBlocksUsed,
                      s.numBlocksCachedFree, s.numBlocksFree, s.prefixQueryTokens, s.prefixHitTokens,
                      s.numPreemptions, s.tokenBudget, s.prefixQueryRequests, s.numSpecTokens,
                      s.numAcceptedSpecTokens, s.numSpecDrafts});
}

StepRecord stepFromJson(const json& j) {
  // 19 since the speculative-decoding counts, 16 since prefix_query_requests (vLLM's
  // recent hit rate); older files have 15.
  check(j.is_array() && (j.size() == 15 || j.size() == 16 || j.size() == 19),
        "run file: each entry of \"steps\" must be an array of 19 numbers (15 or 16 in older files)");
  StepRecord s;
  s.step = j[0];
  s.startTime = j[1];
  s.duration = j[2];
  s.numPrefillTokens = j[3];
  s.numDecodeTokens = j[4];
  s.numScheduledSeqs = j[5];
  s.numRunning = j[6];
  s.numWaiting = j[7];
  s.numBlocksUsed = j[8];
  s.numBlocksCachedFree = j[9];
  s.numBlocksFree = j[10];
  s.prefixQueryTokens = j[11];
  s.prefixHitTokens = j[12];
  s.numPreemptions = j[13];
  s.tokenBudget = j[14];
  if (j.size() >= 16) s.prefixQueryRequests = j[15];
  if (j.size() >= 19) {
    s.numSpecTokens = j[16];
    s.numAcceptedSpecTokens = j[17];
    s.numSpecDrafts = j[18];
  }
  return s;
}

namespace {
json workloadToJson(const WorkloadOptions& w) {
  return json{{"num_prompts", w.numPrompts},
              {"request_rate", std::isinf(w.requestRate) ? json("inf") : json(w.requestRate)},
              {"input_len", w.inputLen},
              {"range_ratio", w.rangeRatio},
              {"output_len", w.outputLen},
              {"shared_prefix_len", w.sharedPrefixLen},
              {"num_prefix_groups", w.numPrefixGroups},
              {"ignore_eos", w.ignoreEos},
              {"temperature", w.temperature},
              {"seed", w.seed}};
}
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
  json j{{"format", "llm-workbench-run"}, {"version", 1}, {"model_dir", run.modelDir},
         {"device", run.device}, {"initial_config", configToJson(run.initialConfig)}};
  j["knob_changes"] = json::array();
  for (const auto& k : run.knobChanges)
    j["knob_changes"].push_back({{"time", k.time}, {"description", k.description}, {"config", configToJson(k.config)}});
  j["workload"] = run.hasWorkload ? workloadToJson(run.workload) : json(nullptr);
  j["requests"] = json::array();
  for (const auto& t : run.requests) {
    json r = timelineToJson(t);
    if (auto it = run.tags.find(t.id); it != run.tags.end()) r["tag"] = it->second;
    j["requests"].push_back(std::move(r));
  }
  j["steps"] = json::array();
  for (const auto& s : run.steps) j["steps"].push_back(stepToJson(s));
  return j;
}

RunData runFromJson(const json& j) {
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
      if (r.contains("tag")) run.tags[run.requests.back().id] = r["tag"].get<std::string>();
    }
    for (const auto& s : j.value("steps", json::array())) run.steps.push_back(stepFromJson(s));
  } catch (const json::exception& e) {
    throw Error(std::string("run file: malformed field: ") + e.what());
  }
  return run;
}

}  // namespace lwb::ui
