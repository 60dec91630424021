#pragma once
// The batch plan of one step: which requests run, how many tokens each computes, what
// was preempted or rejected. The engine root turns it into the executor's ForwardBatch
// (forward_batch_builder.h): the scheduler includes no executor header.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/sched/request.h"

namespace lwb {

struct ScheduledSeq {
  Request* request = nullptr;
  int numNewTokens = 0;        // tokens computed this step
  int numComputedBefore = 0;   // position of the first of them (cached or computed before)
  bool needLogits = false;     // reaches the end of its tokens: a token gets sampled
  // Speculative decoding: the last numSpecTokens() of numNewTokens are these drafts; the
  // step verifies them (logits for 1 + numSpecTokens() rows).
  std::vector<int> specTokenIds;
  int numSpecTokens() const { return int(specTokenIds.size()); }
  int numPrefillTokens() const;  // of numNewTokens, those inside the prompt
};

struct RejectedRequest {
  Request* request = nullptr;
  std::string reason;
};

struct SchedulerOutput {
  std::vector<ScheduledSeq> seqs;   // running requests first (in order), then admissions
  int numScheduledTokens = 0;
  int numPrefillTokens = 0;
  int numDecodeTokens = 0;
  int numSpecTokens = 0;                     // draft tokens verified (not in the two above)
  std::vector<Request*> preempted;           // this step, in order
  std::vector<RejectedRequest> rejected;     // can never run under the current knobs
  // Admissions of never-preempted requests this step, with caching on (vLLM).
  int64_t prefixQueryRequests = 0;
  int64_t prefixQueryTokens = 0;
  int64_t prefixHitTokens = 0;
  int64_t preemptedPrefixQueryTokens = 0;    // resumed requests' lookups, kept apart
  int64_t preemptedPrefixHitTokens = 0;
  // First admissions this step, caching on or off: prompt tokens missed, by reason.
  std::array<int64_t, kNumPrefixMissReasons> prefixMissTokens{};
  int tokenBudget = 0;

  bool empty() const { return seqs.empty(); }
};

}  // namespace lwb
