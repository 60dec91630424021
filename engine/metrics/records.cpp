#include "engine/metrics/records.h"

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

// The last output token's time; tokenTimes is authoritative, firstTokenTime covers a
// producer that only filled the first-token stamp.
std::optional<double> RequestTimeline::e2e() const {
  if (!tokenTimes.empty()) return tokenTimes.back() - arrivalTime;
  return ttft();
}

// vLLM: TPOT is undefined for a single output token (no decode phase).
std::optional<double> RequestTimeline::tpot() const {
  const int n = tokenTimes.empty() ? numOutputTokens : static_cast<int>(tokenTimes.size());
  auto first = ttft();
  auto last = e2e();
  if (n < 2 || !first || !last) return std::nullopt;
  return (*last - *first) / (n - 1);
}

std::optional<double> RequestTimeline::prefillTime() const {
  if (!firstScheduledTime || !firstTokenTime) return std::nullopt;
  return *firstTokenTime - *firstScheduledTime;
}

std::optional<double> RequestTimeline::decodeTime() const {
  auto first = ttft();
  auto last = e2e();
  if (!first || !last) return std::nullopt;
  return *last - *first;
}

std::vector<double> RequestTimeline::itls() const {
  std::vector<double> gaps;
  for (size_t i = 1; i < tokenTimes.size(); ++i) gaps.push_back(tokenTimes[i] - tokenTimes[i - 1]);
  return gaps;
}

}  // namespace lwb
