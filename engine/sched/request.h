#pragma once
// One request's scheduling state. No phases: numComputedTokens catches up with
// tokenIds.size() (prompt + output); the scheduler hands it a prompt chunk or one
// decode token per step.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/sample/sampling_params.h"
#include "engine/sched/request_timeline.h"

namespace lwb {

struct Model;

struct Request {
  RequestId id = 0;
  std::vector<int> tokenIds;      // prompt, then output
  int numPromptTokens = 0;
  int numComputedTokens = 0;      // tokens whose KV is in the cache
  SamplingParams sampling;
  int priority = 0;               // lower first (scheduling_policy=priority)
  int64_t arrivalSeq = 0;         // admission order tie-break
  RequestState state = RequestState::Waiting;
  RequestTimeline timeline;
  bool admittedOnce = false;      // numCachedPromptTokens recorded on first admission
  int numComputedBeforePreemption = 0;  // the most computed before the last preemption(s)
  // Speculative decoding (vLLM's spec_token_ids): drafts proposed for the tokens after
  // tokenIds, verified by the next step; only while decoding, cleared on preemption.
  std::vector<int> specTokenIds;
  // The draft model's distribution q of each draft [numDrafts][vocabSize], for
  // speculative sampling; empty for n-gram drafts (point masses) and greedy requests.
  std::vector<std::vector<double>> specDraftProbs;

  int numTokens() const { return int(tokenIds.size()); }
  int numOutputTokens() const { return numTokens() - numPromptTokens; }
  bool isFinished() const { return state == RequestState::Finished || state == RequestState::Rejected; }
};

// Checks a request against the model and max_model_len; throws lwb::Error naming the
// field (empty prompt, token id outside the vocabulary, prompt ≥ max_model_len,
// sampling params out of range).
void validateRequest(const std::vector<int>& promptTokenIds, const SamplingParams& sampling, int vocabSize,
                     int maxModelLen);

}  // namespace lwb
