#include "engine/metrics/export.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/common/error.h"
#include "engine/metrics/histogram.h"
#include "engine/metrics/stats.h"

namespace lwb {
namespace {

using nlohmann::json;

// A histogram plus the summary statistics vLLM's bench prints, over samples in seconds.
json histogramJson(const std::vector<double>& samples, std::vector<double> bounds) {
  Histogram h(std::move(bounds));
  for (double v : samples) h.observe(v);
  json buckets = json::object();
  const auto cumulative = h.cumulativeCounts();
  for (size_t i = 0; i < h.upperBounds().size(); ++i) buckets[json(h.upperBounds()[i]).dump()] = cumulative[i];
  buckets["+Inf"] = cumulative.back();
  const Summary s = summarize(samples);
  return {{"count", h.count()}, {"sum", h.sum()}, {"buckets", buckets}, {"mean", s.mean},
          {"median", s.median}, {"p90", s.p90}, {"p99", s.p99}, {"max", s.max}};
}

template <typename Metric>
std::vector<double> collect(const std::vector<RequestTimeline>& timelines, Metric metric) {
  std::vector<double> out;
  for (const auto& t : timelines)
    if (t.recorded())  // each metric where it is defined
      if (auto v = (t.*metric)()) out.push_back(*v);
  return out;
}

std::string field(const std::optional<double>& v) {
  if (!v) return "";
  std::ostringstream os;
  os.precision(9);
  os << *v;
  return os.str();
}

// RFC 4180: quote when the text has a comma, quote or line break; double the quotes.
std::string csvText(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The scalar spec_decode_* counters and rates of specDecodeJson, so the CSV columns carry
// the JSON's names and values; the per-position list stays in the JSON exports.
std::vector<std::pair<std::string, json>> specDecodeColumns(const SpecDecodeCounts& c) {
  std::vector<std::pair<std::string, json>> out;
  const json all = specDecodeJson(c, "spec_decode_");  // items() must not outlive it
  for (const auto& [key, value] : all.items())
    if (!value.is_array()) out.emplace_back(key, value);
  return out;
}

}  // namespace

json metricsSummaryJson(const std::vector<RequestTimeline>& timelines, const std::vector<StepRecord>& steps) {
  int64_t queries = 0, hits = 0, preemptions = 0, promptTokens = 0, generationTokens = 0;
  double maxUsage = 0;
  std::array<int64_t, kNumPrefixMissReasons> missed{};
  for (const auto& s : steps) {
    for (size_t i = 0; i < missed.size(); ++i) missed[i] += s.prefixMissTokens[i];
    queries += s.prefixQueryTokens;
    hits += s.prefixHitTokens;
    preemptions += s.numPreemptions;
    maxUsage = std::max(maxUsage, kvCacheUsage(s));
  }
  std::vector<double> itls;
  json success = json::object();  // vLLM's request_success, by finished_reason
  SpecDecodeCounts spec;
  for (const auto& t : timelines) {
    spec.add(t.specDecode);
    if (t.firstTokenTime) promptTokens += t.numPromptTokens;  // counted at the first token
    generationTokens += t.numOutputTokens;
    const auto gaps = t.itls();
    itls.insert(itls.end(), gaps.begin(), gaps.end());
    if (t.finishReason == FinishReason::None) continue;
    const std::string reason = finishReasonName(t.finishReason);
    success[reason] = success.value(reason, 0) + 1;
  }
  const auto ttft = Histogram::ttftBuckets();
  const auto itl = Histogram::itlBuckets();
  const auto latency = Histogram::requestLatencyBuckets();  // vLLM's buckets for the per-request times
  const StepRecord last = steps.empty() ? StepRecord{} : steps.back();
  json summary = {
      {"vllm:time_to_first_token_seconds", histogramJson(collect(timelines, &RequestTimeline::ttft), ttft)},
      {"vllm:inter_token_latency_seconds", histogramJson(itls, itl)},
      {"vllm:e2e_request_latency_seconds", histogramJson(collect(timelines, &RequestTimeline::e2e), latency)},
      {"vllm:request_queue_time_seconds", histogramJson(collect(timelines, &RequestTimeline::queueTime), latency)},
      {"vllm:request_prefill_time_seconds", histogramJson(collect(timelines, &RequestTimeline::prefillTime), latency)},
      {"vllm:request_decode_time_seconds", histogramJson(collect(timelines, &RequestTimeline::decodeTime), latency)},
      {"vllm:request_inference_time_seconds",
       histogramJson(collect(timelines, &RequestTimeline::inferenceTime), latency)},
      {"vllm:request_time_per_output_token_seconds", histogramJson(collect(timelines, &RequestTimeline::tpot), itl)},
      {"vllm:prompt_tokens", promptTokens},
      {"vllm:generation_tokens", generationTokens},
      {"vllm:prefix_cache_queries", queries},
      {"vllm:prefix_cache_hits", hits},
      {"vllm:num_preemptions", preemptions},
      {"vllm:request_success", success},
      {"vllm:kv_cache_usage_perc", kvCacheUsage(last)},
      {"vllm:num_requests_running", last.numRunning},
      {"vllm:num_requests_waiting", last.numWaiting},
      {"lwb:kv_cache_usage_perc_max", maxUsage},
      {"lwb:prefix_cache_hit_rate", queries > 0 ? double(hits) / double(queries) : 0.0},
      {"lwb:num_steps", steps.size()},
  };
  json byReason = json::object();  // every reason, so a reader finds 0 rather than nothing
  for (int i = 0; i < kNumPrefixMissReasons; ++i)
    byReason[std::string(prefixMissReasonName(prefixMissReasonAt(i)))] = missed[size_t(i)];
  summary["lwb:prefix_cache_missed_tokens"] = byReason;
  summary.update(specDecodeJson(spec, "vllm:spec_decode_"));
  return summary;
}

json runToJson(const std::vector<RequestTimeline>& timelines, const std::vector<StepRecord>& steps) {
  json requests = json::array(), stepArray = json::array();
  for (const auto& t : timelines) requests.push_back(timelineToJson(t));
  for (const auto& s : steps) stepArray.push_back(stepToJson(s));
  return {{"requests", requests}, {"steps", stepArray}, {"metrics", metricsSummaryJson(timelines, steps)}};
}

std::string requestsCsv(const std::vector<RequestTimeline>& timelines) {
  std::ostringstream os;
  os << "id,priority,num_prompt_tokens,num_output_tokens,num_cached_prompt_tokens,num_preemptions,"
        "arrival_time,first_scheduled_time,first_token_time,finish_time,queue_time,ttft,tpot,e2e,"
        "prefill_time,decode_time,finish_reason,error";
  for (const auto& [name, value] : specDecodeColumns({})) os << ',' << name;
  for (int i = 0; i < kNumPrefixMissReasons; ++i) os << ",missed_" << prefixMissReasonName(prefixMissReasonAt(i));
  os << ",diverged_at_token,recomputed_after_preemption,kv_transfer_bytes,kv_transfer_ms";
  os << '\n';
  for (const auto& t : timelines) {
    os << t.id << ',' << t.priority << ',' << t.numPromptTokens << ',' << t.numOutputTokens << ','
       << t.numCachedPromptTokens << ',' << t.numPreemptions << ',' << field(t.arrivalTime) << ','
       << field(t.firstScheduledTime) << ',' << field(t.firstTokenTime) << ',' << field(t.finishTime) << ','
       << field(t.queueTime()) << ',' << field(t.ttft()) << ',' << field(t.tpot()) << ',' << field(t.e2e()) << ','
       << field(t.prefillTime()) << ',' << field(t.decodeTime()) << ',' << finishReasonName(t.finishReason) << ','
       << csvText(t.error);
    for (const auto& [name, value] : specDecodeColumns(t.specDecode)) os << ',' << value.dump();
    for (int n : t.prefixMiss.numTokens) os << ',' << n;
    os << ',' << (t.prefixMiss.divergedAtToken >= 0 ? std::to_string(t.prefixMiss.divergedAtToken) : std::string())
       << ',' << t.prefixMiss.recomputedAfterPreemption;
    os << ',' << t.kvTransferBytes << ',' << (t.kvTransferTime ? std::to_string(*t.kvTransferTime * 1000.0) : std::string());
    os << '\n';
  }
  return os.str();
}

std::string stepsCsv(const std::vector<StepRecord>& steps) {
  std::ostringstream os;
  os << "step,start_time,duration,num_prefill_tokens,num_decode_tokens,num_scheduled_seqs,num_running,"
        "num_waiting,num_blocks_used,num_blocks_cached_free,num_blocks_free,kv_cache_usage,"
        "prefix_query_tokens,prefix_hit_tokens,num_preemptions,token_budget,num_spec_tokens,"
        "num_accepted_spec_tokens,num_spec_drafts";
  for (int i = 0; i < kNumPrefixMissReasons; ++i) os << ",missed_" << prefixMissReasonName(prefixMissReasonAt(i));
  os << '\n';
  for (const auto& s : steps) {
    os << s.step << ',' << field(s.startTime) << ',' << field(s.duration) << ',' << s.numPrefillTokens << ','
       << s.numDecodeTokens << ',' << s.numScheduledSeqs << ',' << s.numRunning << ',' << s.numWaiting << ','
       << s.numBlocksUsed << ',' << s.numBlocksCachedFree << ',' << s.numBlocksFree << ','
       << field(kvCacheUsage(s)) << ',' << s.prefixQueryTokens << ',' << s.prefixHitTokens << ','
       << s.numPreemptions << ',' << s.tokenBudget << ',' << s.numSpecTokens << ',' << s.numAcceptedSpecTokens << ','
       << s.numSpecDrafts;
    for (int64_t n : s.prefixMissTokens) os << ',' << n;
    os << '\n';
  }
  return os.str();
}

void writeTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
  out << text;
  out.flush();
  if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace lwb
