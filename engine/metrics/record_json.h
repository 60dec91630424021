#pragma once
// The one JSON encoding of a request's timeline and of a step record, used by the
// exports (bench --json, run exports) and by saved runs, and read back by both.
// Times are seconds on the engine clock, as recorded.
#include <nlohmann/json.hpp>

#include "engine/metrics/records.h"

namespace lwb {

// Fraction of KV blocks held by requests (vLLM's kv_cache_usage_perc, in [0, 1]):
// evictable cached blocks count as free. 0 when the record knows of no blocks.
double kvCacheUsage(const StepRecord& step);

// Derived metrics are present (null when undefined): queue_time, ttft, tpot, e2e,
// prefill_time, decode_time, inference_time; plus the raw stamps, token_times and the
// spec_decode_* counters.
nlohmann::json timelineToJson(const RequestTimeline& t);
// Reads the raw stamps back (derived metrics are recomputed, not read). Throws
// lwb::Error naming the field when one has the wrong type.
RequestTimeline timelineFromJson(const nlohmann::json& j);

// Speculative decoding counters under `prefix` + vLLM's names: num_drafts,
// num_draft_tokens, num_accepted_tokens, num_accepted_tokens_per_pos (a list), and the
// derived acceptance_rate (accepted / draft tokens) and mean_acceptance_length
// (1 + accepted / drafts). Prefix "vllm:spec_decode_" for metrics, "spec_decode_" for
// bench, request and generate JSON.
nlohmann::json specDecodeJson(const SpecDecodeCounts& c, const std::string& prefix);

// Why prompt tokens missed the prefix cache (prefix_miss.h), as the API's
// usage.prompt_tokens_details and every per-request record carry it:
// "missed_by_reason": {reason: tokens} for the reasons with tokens (a hit has no entry),
// and "diverged_at_token": k, only when a prefix diverged.
inline constexpr const char* kMissedByReasonKey = "missed_by_reason";
inline constexpr const char* kDivergedAtTokenKey = "diverged_at_token";
nlohmann::json missedByReasonJson(const PrefixMiss& m);
// The two keys above into `record`; with `details`, also "diverged_text" ({"ours",
// "theirs"}), "evicted_time", "evicted_by" and "recomputed_after_preemption".
void addPrefixMissJson(const PrefixMiss& m, nlohmann::json& record, bool details);
// Reads them back; an unknown reason or a negative count throws lwb::Error naming it.
PrefixMiss prefixMissFromJson(const nlohmann::json& record);

// An object with the StepRecord's fields under snake_case names, plus kv_cache_usage;
// prefixMissTokens as "prefix_missed_tokens": {reason: tokens}, reasons with tokens only.
nlohmann::json stepToJson(const StepRecord& s);
// Reads stepToJson's object, and also the array of 15 or 16 numbers that runs saved by
// workbench versions before the one encoding used.
StepRecord stepFromJson(const nlohmann::json& j);

}  // namespace lwb
