#include "engine/metrics/trace.h"

#include <algorithm>
#include <string>

#include "engine/metrics/export.h"

namespace lwb {
namespace {

using nlohmann::json;

constexpr int kEnginePid = 1;
constexpr int kStepsTid = 1;
constexpr int kRequestsPid = 2;

double us(double seconds) { return seconds * 1e6; }

json metadata(const char* what, int pid, int tid, const std::string& name) {
  return {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"ts", 0}, {"args", {{"name", name}}}};
}

json span(const std::string& name, int pid, int64_t tid, double start, double end, json args = json::object()) {
  return {{"ph", "X"}, {"name", name}, {"cat", pid == kEnginePid ? "step" : "request"}, {"pid", pid},
          {"tid", tid}, {"ts", us(start)}, {"dur", us(std::max(0.0, end - start))}, {"args", std::move(args)}};
}

json counter(const std::string& name, double time, json args) {
  return {{"ph", "C"}, {"name", name}, {"pid", kEnginePid}, {"tid", kStepsTid}, {"ts", us(time)}, {"args", std::move(args)}};
}

void addStep(const StepRecord& s, std::vector<json>& events) {
  const double end = s.startTime + s.duration;
  events.push_back(span("step", kEnginePid, kStepsTid, s.startTime, end, stepToJson(s)));
  events.push_back(counter("kv_cache_usage_perc", end, {{"usage", kvCacheUsage(s)}}));
  events.push_back(counter("num_requests", end, {{"running", s.numRunning}, {"waiting", s.numWaiting}}));
  events.push_back(counter("batch_tokens", end, {{"prefill", s.numPrefillTokens}, {"decode", s.numDecodeTokens}}));
}

// The request's phases, each present only when both of its ends are known.
void addRequest(const RequestTimeline& t, std::vector<json>& events) {
  const int64_t tid = t.id + 1;
  events.push_back(metadata("thread_name", kRequestsPid, int(tid), "request " + std::to_string(t.id)));
  // The enclosing span must contain its phases for the viewer to nest them.
  double last = t.tokenTimes.empty() ? t.arrivalTime : t.tokenTimes.back();
  if (t.finishTime) last = std::max(last, *t.finishTime);
  if (t.firstScheduledTime) last = std::max(last, *t.firstScheduledTime);
  events.push_back(span("request", kRequestsPid, tid, t.arrivalTime, last,
                        {{"id", t.id}, {"num_prompt_tokens", t.numPromptTokens},
                         {"num_output_tokens", t.numOutputTokens},
                         {"num_cached_prompt_tokens", t.numCachedPromptTokens},
                         {"kv_transfer_bytes", t.kvTransferBytes},
                         {"finish_reason", finishReasonName(t.finishReason)}}));
  if (t.firstScheduledTime) events.push_back(span("queued", kRequestsPid, tid, t.arrivalTime, *t.firstScheduledTime));
  if (t.firstScheduledTime && t.firstTokenTime)
    events.push_back(span("prefill", kRequestsPid, tid, *t.firstScheduledTime, *t.firstTokenTime));
  if (t.firstTokenTime && t.tokenTimes.size() > 1)
    events.push_back(span("decode", kRequestsPid, tid, *t.firstTokenTime, t.tokenTimes.back()));
  for (double p : t.preemptionTimes)
    events.push_back({{"ph", "i"}, {"name", "preempted"}, {"s", "t"}, {"pid", kRequestsPid}, {"tid", tid}, {"ts", us(p)}});
}

// Metadata first; then by ts, longer spans first so that parents precede children.
bool before(const json& a, const json& b) {
  const bool am = a["ph"] == "M", bm = b["ph"] == "M";
  if (am != bm) return am;
  const double ta = a["ts"].get<double>(), tb = b["ts"].get<double>();
  if (ta != tb) return ta < tb;
  return a.value("dur", 0.0) > b.value("dur", 0.0);
}

}  // namespace

json chromeTrace(const std::vector<RequestTimeline>& timelines, const std::vector<StepRecord>& steps) {
  std::vector<json> events = {metadata("process_name", kEnginePid, 0, "engine"),
                              metadata("thread_name", kEnginePid, kStepsTid, "steps"),
                              metadata("process_name", kRequestsPid, 0, "requests")};
  for (const auto& s : steps) addStep(s, events);
  for (const auto& t : timelines) addRequest(t, events);
  std::stable_sort(events.begin(), events.end(), before);
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}, {"otherData", {{"producer", "llm-workbench"}}}};
}

}  // namespace lwb
