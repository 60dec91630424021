#pragma once
// Exporters for a run's records: JSON (requests, steps and a "metrics" summary under
// vLLM's Prometheus names) and CSV (one row per request / per step). The Chrome trace
// lives in trace.h. Times are seconds on the engine clock, as recorded.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/metrics/record_json.h"
#include "engine/metrics/records.h"

namespace lwb {

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

// Header line then one line per record; undefined metrics are empty fields. Requests end
// with the spec_decode_* counters and rates of specDecodeJson (not the per-position
// list); steps with the draft tokens verified and accepted and the verifications.
std::string requestsCsv(const std::vector<RequestTimeline>& timelines);
std::string stepsCsv(const std::vector<StepRecord>& steps);

// Writes the whole text or throws lwb::Error naming the path and the OS reason.
void writeTextFile(const std::string& path, const std::string& text);

}  // namespace lwb
