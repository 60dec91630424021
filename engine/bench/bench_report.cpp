#include "engine/bench/bench_report.h"

#include <algorithm>
#include <cstdio>

#include "engine/config/knobs.h"
#include "engine/metrics/export.h"

namespace lwb {
namespace {

using nlohmann::json;

std::vector<double> toMs(const std::vector<double>& seconds) {
  std::vector<double> out;
  out.reserve(seconds.size());
  for (double s : seconds) out.push_back(s * 1000.0);
  return out;
}

struct Samples {
  std::vector<double> ttft, tpot, itl, e2el;
};

void addSamples(const RequestTimeline& t, Samples& s) {
  if (auto v = t.ttft()) s.ttft.push_back(*v);
  if (auto v = t.tpot()) s.tpot.push_back(*v);
  if (auto v = t.e2e()) s.e2el.push_back(*v);
  const auto gaps = t.itls();
  s.itl.insert(s.itl.end(), gaps.begin(), gaps.end());
}

void addStats(json& j, const std::string& name, const Summary& s) {
  j["mean_" + name + "_ms"] = s.mean;
  j["median_" + name + "_ms"] = s.median;
  j["std_" + name + "_ms"] = s.std;
  j["p90_" + name + "_ms"] = s.p90;
  j["p99_" + name + "_ms"] = s.p99;
}

// A remote run knows how many tokens came (the usage chunk), not their ids.
int numOutputTokens(const BenchRequestRecord& r) {
  return std::max(static_cast<int>(r.outputTokenIds.size()), r.timeline.numOutputTokens);
}

json msOrNull(const std::optional<double>& seconds) { return seconds ? json(*seconds * 1000.0) : json(nullptr); }

json requestJson(const BenchRequestRecord& r) {
  const RequestTimeline& t = r.timeline;
  json j = {{"arrival_time", t.arrivalTime}, {"prompt_len", t.numPromptTokens}, {"output_len", numOutputTokens(r)},
          {"cached_tokens", t.numCachedPromptTokens}, {"queue_ms", msOrNull(t.queueTime())},
          {"ttft_ms", msOrNull(t.ttft())}, {"tpot_ms", msOrNull(t.tpot())}, {"e2el_ms", msOrNull(t.e2e())},
          {"itl_ms", toMs(t.itls())}, {"num_preemptions", t.numPreemptions},
          {"spec_decode_num_drafts", t.specDecode.numDrafts},
          {"spec_decode_num_accepted_tokens", t.specDecode.numAcceptedTokens},
          {"finish_reason", finishReasonName(t.finishReason)}, {"error", t.error},
          {"kv_transfer_bytes", t.kvTransferBytes}, {"kv_transfer_ms", msOrNull(t.kvTransferTime)},
          {"output_token_ids", r.outputTokenIds}};
  if (t.prefixMiss.accounted) addPrefixMissJson(t.prefixMiss, j, false);
  return j;
}

}  // namespace

BenchReport makeBenchReport(std::vector<BenchRequestRecord> requests, const std::vector<StepRecord>& steps,
                            double duration) {
  BenchReport r;
  r.numRequests = static_cast<int>(requests.size());
  r.duration = duration;
  Samples s;
  for (const auto& req : requests) {
    r.specDecode.add(req.timeline.specDecode);
    if (!req.timeline.completed()) {
      ++r.numFailed;
      continue;
    }
    ++r.completed;
    r.totalInputTokens += req.timeline.numPromptTokens;
    r.totalOutputTokens += numOutputTokens(req);
    addSamples(req.timeline, s);
  }
  if (duration > 0) {
    r.requestThroughput = r.completed / duration;
    r.outputThroughput = double(r.totalOutputTokens) / duration;
    r.totalTokenThroughput = double(r.totalInputTokens + r.totalOutputTokens) / duration;
  }
  r.ttftMs = summarize(toMs(s.ttft));
  r.tpotMs = summarize(toMs(s.tpot));
  r.itlMs = summarize(toMs(s.itl));
  r.e2elMs = summarize(toMs(s.e2el));
  r.requests = std::move(requests);
  for (const StepRecord& step : steps) addStep(r, step);
  return r;
}

void applyGoodput(BenchReport& r, const GoodputSlo& slo) {
  r.goodput = slo;
  r.numGood = r.numMissedTtft = r.numMissedTpot = r.numMissedE2el = 0;
  for (const auto& req : r.requests) {
    if (!req.timeline.completed()) continue;
    const SloCheck met = checkSlo(req.timeline, slo);
    r.numGood += met.all() ? 1 : 0;
    r.numMissedTtft += met.ttft ? 0 : 1;
    r.numMissedTpot += met.tpot ? 0 : 1;
    r.numMissedE2el += met.e2el ? 0 : 1;
  }
  r.requestGoodput = r.duration > 0 ? r.numGood / r.duration : 0;
  r.requestGoodputFraction = r.completed > 0 ? double(r.numGood) / r.completed : 0;
}

void addStep(BenchReport& r, const StepRecord& s) {
  r.prefixQueryTokens += s.prefixQueryTokens;
  r.prefixHitTokens += s.prefixHitTokens;
  for (size_t i = 0; i < r.prefixMissTokens.size(); ++i) r.prefixMissTokens[i] += s.prefixMissTokens[i];
  r.numPreemptions += s.numPreemptions;
  r.maxKvCacheUsage = std::max(r.maxKvCacheUsage, kvCacheUsage(s));
  ++r.numSteps;
  r.prefixCacheHitRate = r.prefixQueryTokens > 0 ? double(r.prefixHitTokens) / double(r.prefixQueryTokens) : 0.0;
}

std::string formatBenchSummary(const BenchReport& r) {
  std::string out;
  char line[160];
  auto row = [&](const char* label, double v, int precision) {
    std::snprintf(line, sizeof line, "%-40s%-10.*f\n", label, precision, v);
    out += line;
  };
  auto rowInt = [&](const char* label, long long v) {
    std::snprintf(line, sizeof line, "%-40s%-10lld\n", label, v);
    out += line;
  };
  auto section = [&](const char* title) {
    std::snprintf(line, sizeof line, "%s\n", title);
    out += line;
  };
  auto latency = [&](const char* title, const char* name, const Summary& s) {
    section(title);
    std::string mean = std::string("Mean ") + name + " (ms):", median = std::string("Median ") + name + " (ms):",
                p99 = std::string("P99 ") + name + " (ms):";
    row(mean.c_str(), s.mean, 2);
    row(median.c_str(), s.median, 2);
    row(p99.c_str(), s.p99, 2);
  };
  section("============ Serving Benchmark Result ============");
  if (r.simulated()) {  // never to be mistaken for a measurement
    std::snprintf(line, sizeof line, "SIMULATED on %s: predicted times, not measured\n", r.simulatedDevice.c_str());
    out += line;
  }
  rowInt("Successful requests:", r.completed);
  if (r.numFailed > 0) rowInt("Failed requests:", r.numFailed);
  row("Benchmark duration (s):", r.duration, 2);
  rowInt("Total input tokens:", r.totalInputTokens);
  rowInt("Total generated tokens:", r.totalOutputTokens);
  row("Request throughput (req/s):", r.requestThroughput, 2);
  if (r.goodput) {  // as vLLM's bench prints it, and the share of completed requests
    row("Request goodput (req/s):", r.requestGoodput, 2);
    std::snprintf(line, sizeof line, "%-40s%.1f %% (%d of %d; %s)\n", "Requests within every SLO:",
                  100.0 * r.requestGoodputFraction, r.numGood, r.completed, r.goodput->describe().c_str());
    out += line;
  }
  row("Output token throughput (tok/s):", r.outputThroughput, 2);
  row("Total Token throughput (tok/s):", r.totalTokenThroughput, 2);
  latency("---------------Time to First Token----------------", "TTFT", r.ttftMs);
  latency("-----Time per Output Token (excl. 1st token)------", "TPOT", r.tpotMs);
  latency("---------------Inter-token Latency----------------", "ITL", r.itlMs);
  latency("----------------End-to-end Latency----------------", "E2EL", r.e2elMs);
  section("----------------------Engine----------------------");
  row("Prefix cache hit rate:", r.prefixCacheHitRate, 3);
  for (int i = 0; i < kNumPrefixMissReasons; ++i) {  // the reasons with tokens, in precedence order
    if (r.prefixMissTokens[size_t(i)] == 0) continue;
    const std::string label = "Prompt tokens missed, " + std::string(prefixMissReasonName(prefixMissReasonAt(i))) + ":";
    rowInt(label.c_str(), r.prefixMissTokens[size_t(i)]);
  }
  rowInt("Preemptions:", r.numPreemptions);
  row("Max KV cache usage:", r.maxKvCacheUsage, 3);
  rowInt("Engine steps:", r.numSteps);
  if (r.specDecode.numDrafts > 0) {  // as vLLM's bench prints it
    section("---------------Speculative Decoding---------------");
    row("Acceptance rate (%):", r.specDecode.acceptanceRate() * 100.0, 2);
    row("Acceptance length:", r.specDecode.meanAcceptanceLength(), 2);
    rowInt("Drafts:", r.specDecode.numDrafts);
    rowInt("Draft tokens:", r.specDecode.numDraftTokens);
    rowInt("Accepted tokens:", r.specDecode.numAcceptedTokens);
    std::string perPos;
    for (int64_t n : r.specDecode.numAcceptedTokensPerPos) {
      std::snprintf(line, sizeof line, "%s%.2f", perPos.empty() ? "" : ", ", 100.0 * double(n) / double(r.specDecode.numDrafts));
      perPos += line;
    }
    std::snprintf(line, sizeof line, "%-40s%s\n", "Per-position acceptance (%):", perPos.c_str());
    out += line;
  }
  section("==================================================");
  return out;
}

json benchReportJson(const BenchReport& r) {
  json j = {{"num_prompts", r.numRequests}, {"completed", r.completed}, {"failed", r.numFailed},
            {"duration", r.duration}, {"total_input_tokens", r.totalInputTokens},
            {"total_output_tokens", r.totalOutputTokens}, {"request_throughput", r.requestThroughput},
            {"output_throughput", r.outputThroughput}, {"total_token_throughput", r.totalTokenThroughput},
            {"prefix_cache_queries", r.prefixQueryTokens}, {"prefix_cache_hits", r.prefixHitTokens},
            {"prefix_cache_hit_rate", r.prefixCacheHitRate}, {"num_preemptions", r.numPreemptions},
            {"max_kv_cache_usage", r.maxKvCacheUsage}, {"num_steps", r.numSteps}, {"config", r.config}};
  json missed = json::object();
  for (int i = 0; i < kNumPrefixMissReasons; ++i)
    missed[std::string(prefixMissReasonName(prefixMissReasonAt(i)))] = r.prefixMissTokens[size_t(i)];
  j["prefix_cache_missed_tokens"] = missed;
  addStats(j, "ttft", r.ttftMs);
  addStats(j, "tpot", r.tpotMs);
  addStats(j, "itl", r.itlMs);
  addStats(j, "e2el", r.e2elMs);
  j.update(specDecodeJson(r.specDecode, "spec_decode_"));
  // vLLM writes request_goodput as null when no SLO was given.
  j["request_goodput"] = r.goodput ? json(r.requestGoodput) : json(nullptr);
  j["request_goodput_fraction"] = r.goodput ? json(r.requestGoodputFraction) : json(nullptr);
  if (r.goodput) j["goodput"] = r.goodput->describe();
  if (r.simulated()) {
    j["simulated"] = true;
    j[std::string(knob::kSimHardware)] = r.simHardware;
  }
  json requests = json::array();
  for (const auto& req : r.requests) requests.push_back(requestJson(req));
  j["requests"] = std::move(requests);
  return j;
}

}  // namespace lwb
