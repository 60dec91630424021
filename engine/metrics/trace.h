#pragma once
// Chrome trace-event JSON (the "JSON Array/Object Format" Perfetto and chrome://tracing
// open). Layout:
//   pid 1 "engine":   tid 1 "steps": one complete event ("X", name "step") per step,
//                     args = the step record; counter events ("C") at each step's end:
//                     "kv_cache_usage_perc", "num_requests" {running, waiting},
//                     "batch_tokens" {prefill, decode}.
//   pid 2 "requests": one track per request (tid = id + 1, named "request <id>"): an
//                     enclosing "request" span and inside it "queued", "prefill",
//                     "decode" spans; instant events ("i") "preempted".
// Timestamps are microseconds on the engine clock; events are sorted by ts (parents
// before children at equal ts), metadata ("M") first.
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/metrics/records.h"

namespace lwb {

nlohmann::json chromeTrace(const std::vector<RequestTimeline>& timelines, const std::vector<StepRecord>& steps);

}  // namespace lwb
