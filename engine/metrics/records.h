#pragma once
// What the engine records: per-request timelines and per-step records. Times are
// seconds on the engine's steady clock since the engine started (EngineClock).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lwb {

using RequestId = int64_t;

enum class RequestState { Waiting, Running, Preempted, Finished, Rejected };
enum class FinishReason { None, Stop, Length, Abort, Error, Rejected };
inline constexpr int kNumFinishReasons = 6;
std::string requestStateName(RequestState s);   // "waiting", ...
std::string finishReasonName(FinishReason r);   // "stop", "length", "abort", "error", "rejected"

// Speculative decoding counters as vLLM's SpecDecodingStats (vllm:spec_decode_*): a
// "draft" is one request's verification in one step with at least one draft token.
struct SpecDecodeCounts {
  int64_t numDrafts = 0;
  int64_t numDraftTokens = 0;
  int64_t numAcceptedTokens = 0;
  std::vector<int64_t> numAcceptedTokensPerPos;  // [position]: drafts accepted at it

  void observe(int numDraftTokens, int numAccepted);
  void add(const SpecDecodeCounts& other);
  double acceptanceRate() const;        // accepted / draft tokens; 0 without drafts
  double meanAcceptanceLength() const;  // 1 + accepted / drafts (tokens per verification); 1 without drafts
};

struct RequestTimeline {
  RequestId id = 0;
  int priority = 0;
  int numPromptTokens = 0;
  int numOutputTokens = 0;
  int numCachedPromptTokens = 0;       // prefix-cache hit on (first) admission
  int numPreemptions = 0;
  double arrivalTime = 0;
  std::optional<double> firstScheduledTime, firstTokenTime, finishTime;
  std::vector<double> tokenTimes;      // one per output token
  std::vector<double> preemptionTimes;
  FinishReason finishReason = FinishReason::None;
  std::string error;                   // reason when rejected / error
  SpecDecodeCounts specDecode;         // speculative decoding, when on

  // The metric definitions, as vLLM V1's IterationStats / FinishedRequestStats; every
  // view, export, the bench JSON and the HTTP /metrics read these and nothing else.
  // nullopt = not defined (yet). arrival = when a front-end submitted the request (on
  // its thread), or the bench's intended arrival.
  std::optional<double> queueTime() const;      // first scheduled − arrival
  std::optional<double> ttft() const;           // first token − arrival (at the first token)
  std::optional<double> e2e() const;            // finish − arrival (finished requests, aborted too)
  std::optional<double> tpot() const;           // finished: decode time / (n − 1); 0 when n <= 1
  std::optional<double> prefillTime() const;    // first token − first scheduled
  std::optional<double> decodeTime() const;     // last token − first token
  std::optional<double> inferenceTime() const;  // last token − first scheduled
  std::vector<double> itls() const;             // every gap between successive tokens
  int numTokensOut() const;                     // n: output tokens with a time, else the count
};

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
  int numPreemptions = 0;       // this step
  int tokenBudget = 0;          // max_num_batched_tokens in force
  // Speculative decoding: draft tokens verified (in the budget, beside prefill and
  // decode tokens), accepted of them, and the verifications (requests with drafts).
  int numSpecTokens = 0;
  int numAcceptedSpecTokens = 0;
  int numSpecDrafts = 0;
};

}  // namespace lwb
