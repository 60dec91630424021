#pragma once
// Exporters for a run's records: JSON (requests, steps and a "metrics" summary under
// vLLM's Prometheus names) and CSV (one row per request / per step). The Chrome trace
// lives in trace.h. Times are seconds on the engine clock, as recorded.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/metrics/records.h"

namespace lwb {

// Fraction of KV blocks held by requests (vLLM's kv_cache_usage_perc, in [0, 1]):
// evictable cached blocks count as free. 0 when the record knows of no blocks.
double kvCacheUsage(const StepRecord& step);

// Derived metrics are present (null when undefined): queue_time, ttft, tpot, e2e,
// prefill_time, decode_time; plus the raw stamps and token_times.
nlohmann::json timelineToJson(const RequestTimeline& t);
// Speculative decoding counters under `prefix` + vLLM's names: num_drafts,
// num_draft_tokens, num_accepted_tokens, num_accepted_tokens_per_pos (a list), and the
// derived acceptance_rate (accepted / draft tokens) and mean_acceptance_length
// (1 + accepted / drafts). Prefix "vllm:spec_decode_" for metrics, "spec_decode_" for
// bench, request and generate JSON.
nlohmann::json specDecodeJson(const SpecDecodeCounts& c, const std::string& prefix);
nlohmann::json stepToJson(const StepRecord& s);

// Keys (counters are totals over `steps`, gauges their last value, histograms over the
// finished requests' samples in seconds, with count/sum/buckets/mean/median/p90/p99):
//   vllm:time_to_first_token_seconds, vllm:inter_token_latency_seconds,
//   vllm:e2e_request_latency_seconds, vllm:request_queue_time_seconds,
//   vllm:request_prefill_time_seconds, vllm:request_decode_time_seconds,
//   vllm:request_time_per_output_token_seconds (histograms);
//   vllm:prompt_tokens, vllm:generation_tokens, vllm:prefix_cache_queries,
//   vllm:prefix_cache_hits, vllm:num_preemptions, vllm:request_success (counters);
//   vllm:kv_cache_usage_perc, vllm:num_requests_running, vllm:num_requests_waiting
//   (gauges); lwb:kv_cache_usage_perc_max, lwb:prefix_cache_hit_rate, lwb:num_steps;
//   vllm:spec_decode_* (specDecodeJson, summed over the requests).
nlohmann::json metricsSummaryJson(const std::vector<RequestTimeline>& timelines,
                                  const std::vector<StepRecord>& steps);

// {"requests": [...], "steps": [...], "metrics": {...}}
nlohmann::json runToJson(const std::vector<RequestTimeline>& timelines, const std::vector<StepRecord>& steps);

// Header line then one line per record; undefined metrics are empty fields.
std::string requestsCsv(const std::vector<RequestTimeline>& timelines);
std::string stepsCsv(const std::vector<StepRecord>& steps);

// Writes the whole text or throws lwb::Error naming the path and the OS reason.
void writeTextFile(const std::string& path, const std::string& text);

}  // namespace lwb
