#pragma once
// A request's vocabulary (id, state, finish reason) and its timeline: the timestamps the
// scheduler and engine stamp, and the metric definitions computed from them. Times are
// seconds on the engine's steady clock since the engine started (EngineClock).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/kv/prefix_miss.h"

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
  PrefixMiss prefixMiss;               // why the other prompt tokens missed (first admission)
  int numPreemptions = 0;
  double arrivalTime = 0;
  std::optional<double> firstScheduledTime, firstTokenTime, finishTime;
  std::vector<double> tokenTimes;      // one per output token
  std::vector<double> preemptionTimes;
  FinishReason finishReason = FinishReason::None;
  std::string error;                   // reason when rejected / error
  SpecDecodeCounts specDecode;         // speculative decoding, when on
  std::string tag;                     // who sent it ("chat 1", "load", "api"): RequestInput.tag
  // P/D disaggregation (pd_engine.h): the KV blocks sent from the prefill to the decode
  // instance, and how long sending them took (seconds; unset when colocated). TTFT
  // includes it: the first token comes from the decode instance.
  int64_t kvTransferBytes = 0;
  std::optional<double> kvTransferTime;
  std::optional<double> kvTransferStartTime;  // when the prefill instance finished it (the transfer began)

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
  // `vllm bench serve`'s "completed": finished with stop or length.
  bool completed() const { return finishReason == FinishReason::Stop || finishReason == FinishReason::Length; }
  // What vLLM records a metric for: every request that reached the engine and finished,
  // aborted ones included (a rejected request never ran).
  bool recorded() const { return finishReason != FinishReason::None && finishReason != FinishReason::Rejected; }
};

}  // namespace lwb
