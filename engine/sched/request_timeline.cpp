#include "engine/sched/request_timeline.h"

#include <algorithm>

namespace lwb {

std::string requestStateName(RequestState s) {
  switch (s) {
    case RequestState::Waiting: return "waiting";
    case RequestState::Running: return "running";
    case RequestState::Preempted: return "preempted";
    case RequestState::Finished: return "finished";
    case RequestState::Rejected: return "rejected";
  }
  return "unknown";
}

std::string finishReasonName(FinishReason r) {
  switch (r) {
    case FinishReason::None: return "";
    case FinishReason::Stop: return "stop";
    case FinishReason::Length: return "length";
    case FinishReason::Abort: return "abort";
    case FinishReason::Error: return "error";
    case FinishReason::Rejected: return "rejected";
  }
  return "unknown";
}

std::optional<double> RequestTimeline::queueTime() const {
  if (!firstScheduledTime) return std::nullopt;
  return *firstScheduledTime - arrivalTime;
}

std::optional<double> RequestTimeline::ttft() const {
  if (!firstTokenTime) return std::nullopt;
  return *firstTokenTime - arrivalTime;
}

std::optional<double> RequestTimeline::e2e() const {
  if (!finishTime) return std::nullopt;
  return *finishTime - arrivalTime;
}

// A remote stream may carry several tokens in one chunk (one token time per chunk): the
// token count, not the chunk count, divides (as `vllm bench serve` does).
int RequestTimeline::numTokensOut() const {
  return std::max(numOutputTokens, static_cast<int>(tokenTimes.size()));
}

// vLLM's mean_time_per_output_token: the first token is prefill's, so n − 1 decode gaps;
// recorded as 0 for a finished request with at most one token.
std::optional<double> RequestTimeline::tpot() const {
  if (!finishTime) return std::nullopt;
  const int n = numTokensOut();
  auto decode = decodeTime();
  if (n <= 1 || !decode) return 0.0;
  return *decode / (n - 1);
}

std::optional<double> RequestTimeline::prefillTime() const {
  if (!firstScheduledTime || !firstTokenTime) return std::nullopt;
  return *firstTokenTime - *firstScheduledTime;
}

// tokenTimes is authoritative; firstTokenTime covers a producer that only filled the
// first-token stamp (then there is no decode yet).
std::optional<double> RequestTimeline::decodeTime() const {
  if (!firstTokenTime) return std::nullopt;
  const double last = tokenTimes.empty() ? *firstTokenTime : tokenTimes.back();
  return last - *firstTokenTime;
}

std::optional<double> RequestTimeline::inferenceTime() const {
  if (!firstScheduledTime || !firstTokenTime) return std::nullopt;
  const double last = tokenTimes.empty() ? *firstTokenTime : tokenTimes.back();
  return last - *firstScheduledTime;
}

std::vector<double> RequestTimeline::itls() const {
  std::vector<double> gaps;
  for (size_t i = 1; i < tokenTimes.size(); ++i) gaps.push_back(tokenTimes[i] - tokenTimes[i - 1]);
  return gaps;
}

void SpecDecodeCounts::observe(int numDraft, int numAccepted) {
  if (numDraft <= 0) return;
  ++numDrafts;
  numDraftTokens += numDraft;
  numAcceptedTokens += numAccepted;
  if (int(numAcceptedTokensPerPos.size()) < numDraft) numAcceptedTokensPerPos.resize(size_t(numDraft), 0);
  for (int i = 0; i < numAccepted; ++i) ++numAcceptedTokensPerPos[size_t(i)];
}

void SpecDecodeCounts::add(const SpecDecodeCounts& o) {
  numDrafts += o.numDrafts;
  numDraftTokens += o.numDraftTokens;
  numAcceptedTokens += o.numAcceptedTokens;
  if (numAcceptedTokensPerPos.size() < o.numAcceptedTokensPerPos.size())
    numAcceptedTokensPerPos.resize(o.numAcceptedTokensPerPos.size(), 0);
  for (size_t i = 0; i < o.numAcceptedTokensPerPos.size(); ++i) numAcceptedTokensPerPos[i] += o.numAcceptedTokensPerPos[i];
}

double SpecDecodeCounts::acceptanceRate() const {
  return numDraftTokens > 0 ? double(numAcceptedTokens) / double(numDraftTokens) : 0.0;
}

double SpecDecodeCounts::meanAcceptanceLength() const {
  return numDrafts > 0 ? 1.0 + double(numAcceptedTokens) / double(numDrafts) : 1.0;
}

}  // namespace lwb
