#pragma once
// What the engine records: per-step records, beside each request's timeline (the
// request's own header). Times are seconds on the engine's steady clock.
#include <array>
#include <cstdint>

#include "engine/sched/request_timeline.h"

namespace lwb {

struct StepRecord {
  int64_t step = 0;
  double startTime = 0;
  double duration = 0;          // seconds: schedule + forward + sample
  int numPrefillTokens = 0;     // prompt tokens computed this step (chunks)
  int numDecodeTokens = 0;
  int numScheduledSeqs = 0;
  int numRunning = 0;           // after the step
  int numWaiting = 0;
  int numBlocksUsed = 0;        // ref count > 0
  int numBlocksCachedFree = 0;  // ref count 0, hash kept (evictable)
  int numBlocksFree = 0;        // ref count 0, no hash
  // This step's admissions of never-preempted requests, with caching on (vLLM's
  // PrefixCacheStats: requests, queries, hits; tokens).
  int64_t prefixQueryRequests = 0;
  int64_t prefixQueryTokens = 0;
  int64_t prefixHitTokens = 0;
  // This step's first admissions, caching on or off: prompt tokens missed, by reason
  // (index = PrefixMissReason).
  std::array<int64_t, kNumPrefixMissReasons> prefixMissTokens{};
  int numPreemptions = 0;       // this step
  int tokenBudget = 0;          // max_num_batched_tokens in force
  // Speculative decoding: draft tokens verified (in the budget, beside prefill and
  // decode tokens), accepted of them, and the verifications (requests with drafts).
  int numSpecTokens = 0;
  int numAcceptedSpecTokens = 0;
  int numSpecDrafts = 0;
  // P/D disaggregation (pd_engine.h): the instance that ran the step (its role and index
  // among that role's instances); Colocated for a single engine. Not exported: a bench
  // run's steps are the decode instances'.
  enum class Instance : uint8_t { Colocated, Prefill, Decode };
  Instance instance = Instance::Colocated;
  int instanceIndex = 0;
};

}  // namespace lwb
