#pragma once
// A proposer guesses the next tokens of decoding requests (vLLM's drafter): before each
// schedule() it fills Request::specTokenIds, which the scheduler then places after the
// request's real token for the target to verify in the same forward pass.
#include <memory>
#include <vector>

#include "engine/sched/request.h"
#include "engine/config/speculative_config.h"

namespace lwb {

class Proposer {
 public:
  virtual ~Proposer() = default;
  // Sets specTokenIds of every running request whose next step computes exactly its last
  // token (it is decoding), at most draftLimit() of them; clears the others'.
  virtual void propose(const std::vector<Request*>& running, int maxModelLen) = 0;
  // `id` finished or was preempted: forget what is kept for it.
  virtual void release(RequestId id) { (void)id; }
};

// How many drafts `r` may take: k, less when max_tokens or max_model_len is near (a
// step emits at most drafts + 1 tokens, each needs a position).
int draftLimit(const Request& r, int k, int maxModelLen);
// Whether `r` is decoding: all but its last token computed.
bool isDecoding(const Request& r);

std::unique_ptr<Proposer> createNgramProposer(const SpeculativeConfig& config);

}  // namespace lwb
