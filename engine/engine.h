#pragma once
// The serving engine: step() = schedule → execute → sample → append / finish → record.
// Single-threaded; EngineLoop runs it on its own thread.
#include <array>
#include <chrono>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "engine/config/engine_config.h"
#include "engine/kv/kv_events.h"
#include "engine/kv/block_listing.h"
#include "engine/metrics/records.h"
#include "engine/sample/sampling_params.h"

namespace lwb {

struct Model;
class Executor;
struct KvImport;
namespace sim {
struct StepShape;
}

struct RequestInput {
  std::vector<int> promptTokenIds;  // as given (BOS already included when wanted)
  SamplingParams sampling;
  int priority = 0;                 // scheduling_policy=priority: lower value first (vLLM)
  std::string tag;                  // free text for the UI ("chat 2", "load"): kept as timeline.tag
  // When a front-end submitted it, stamped on the submitting thread (EngineLoop::submit);
  // unset = when addRequest() runs. TTFT, e2e and queue time count from here.
  std::optional<std::chrono::steady_clock::time_point> arrival;
  // The same on the engine's clock (seconds), which it overrides: a simulated engine's
  // clock is virtual, so a load generator plans arrivals on it, and EngineLoop holds a
  // request due later until the clock reaches it.
  std::optional<double> arrivalTime;
  // P/D across processes: the KV transfer that brought this prompt's blocks from the
  // prefill instance before it was submitted (server/kv_connector_tcp.h); copied into
  // the request's timeline, whose TTFT then includes it (arrival precedes the pull).
  int64_t kvTransferBytes = 0;
  std::optional<double> kvTransferTime;  // seconds
};

// What one request produced in one step.
struct TokenDelta {
  RequestId id = 0;
  std::vector<int> newTokenIds;
  std::string newText;               // incremental detokenization, valid UTF-8
  std::vector<std::vector<std::pair<int, float>>> newLogprobs;  // per new token, when asked
  std::vector<bool> fromDraft;       // per new token: an accepted speculative draft
  // Per new token: newText's size (bytes) once the text released with it was added. Text
  // the detokenizer held back (a partial character, a possible stop string) comes out
  // with a later token; a final flush at finish may add bytes after the last end.
  std::vector<size_t> textEnds;
  bool finished = false;
  FinishReason finishReason = FinishReason::None;
};

struct StepOutput {
  StepRecord record;
  std::vector<TokenDelta> deltas;
  std::vector<RequestId> newlyFinished;  // incl. rejected / aborted / failed this step
  std::string error;                     // the forward pass failed: why (requests finished "error")
  bool ranForward() const { return record.step >= 0; }  // false: only reports, nothing scheduled
};

// Running totals since the engine was created (over KV rebuilds), as vLLM counts them.
struct EngineTotals {
  // Prefix cache (vLLM's PrefixCacheStats): never-preempted requests, caching on.
  int64_t prefixQueryRequests = 0, prefixQueryTokens = 0, prefixHitTokens = 0;
  int64_t preemptedPrefixQueryTokens = 0, preemptedPrefixHitTokens = 0;  // resumed requests
  double recentPrefixHitRate = 0;  // over the most recent 1000 requests (CachingMetrics)
  // First admissions, caching on or off: prompt tokens missed, by reason (prefix_miss.h).
  std::array<int64_t, kNumPrefixMissReasons> prefixMissTokens{};
  int64_t preemptions = 0;
  int64_t generatedTokens = 0;
  int64_t promptTokens = 0;        // counted at each request's first token
  // vLLM's request_success: finished requests by finish_reason (index = FinishReason).
  std::array<int64_t, kNumFinishReasons> requestSuccess{};
  SpecDecodeCounts specDecode;     // vllm:spec_decode_* (speculative decoding on)
};

class Engine {
 public:
  Engine(std::shared_ptr<const Model> model, const EngineConfig& config);
  ~Engine();

  // Validates the request (empty prompt, ids out of vocabulary, too long for
  // max_model_len, bad sampling params). A request that can never be scheduled under
  // the knobs is accepted and rejected at once with the reason (finish_reason
  // "rejected", timeline.error); it shows up in the next step's output.
  RequestId addRequest(RequestInput input);
  // The same with an id chosen by the caller (EngineLoop hands ids out itself); ids must
  // be unique and positive. Do not mix with addRequest() on one engine.
  RequestId addRequestWithId(RequestId id, RequestInput input);
  void abortRequest(RequestId id);
  bool hasUnfinishedRequests() const;
  // One step. When nothing could be scheduled it only reports requests finished since
  // the last step (aborted, rejected) and record.step is -1 (not kept in steps()).
  StepOutput step();
  // Reports of requests finished outside a step (aborts, rejections), without stepping.
  StepOutput flushFinished();

  // Knobs: non-structural apply at the next step; structural ones rebuild the KV pool,
  // aborting in-flight requests (EngineLoop drains first when asked).
  void setConfig(const EngineConfig& config);
  const EngineConfig& config() const;  // as set (0 = vLLM's default for the device)
  EngineConfig effectiveConfig() const;  // with the device's defaults filled in
  const Model& model() const;
  DeviceInfo deviceInfo() const;

  // Forgets a finished request (timeline, tokens, text) once its caller has read what it
  // needs: a long-running caller (EngineLoop) releases every request so memory stays
  // bounded. Unknown ids are ignored; an unfinished request is an error.
  void releaseRequest(RequestId id);
  // Every step is also kept for steps() unless turned off (EngineLoop publishes them as
  // events instead); numSteps() counts them either way.
  void setKeepStepHistory(bool keep);
  // KV-cache events (kv_events.h) for a reader such as the vLLM-style event publisher:
  // off by default; turning them on first reports every block cached now, and a
  // rebuilt pool reports AllBlocksCleared. takeKvEvents() hands over those since the last call.
  void setRecordKvEvents(bool on);
  // Calls `observer` with the shape of every forward pass before it runs (each sequence's
  // new tokens, cached context, logits): what `calibrate` and the simulator's accuracy
  // check pair with the step's duration. Empty to stop.
  void setStepShapeObserver(std::function<void(const sim::StepShape&)> observer);
  std::vector<KvCacheEvent> takeKvEvents();
  int64_t numSteps() const;

  // Introspection for UIs and tests.
  const RequestTimeline* timeline(RequestId id) const;  // finished requests too, until released
  std::vector<RequestTimeline> allTimelines() const;
  std::vector<KvBlockInfo> kvBlocks() const;  // listKvBlocks of the pool in use
  int numKvBlocks() const;
  const std::vector<StepRecord>& steps() const;
  // Output so far of a request (prompt and output ids, detokenized text).
  const std::vector<int>* outputTokenIds(RequestId id) const;
  double now() const;  // seconds since the engine was created (virtual when simulated())
  // The sim backend: no weights run; the clock is virtual, advanced by each step's
  // predicted time, and by advanceClock while the engine idles (a caller that would
  // sleep until the next arrival advances it instead). Throws on a real engine.
  bool simulated() const;
  void advanceClock(double seconds);
  double timeOf(std::chrono::steady_clock::time_point t) const;  // the same clock
  int numRunning() const;
  int numWaiting() const;
  int maxModelLen() const;  // effective, of config(): computed once per change
  std::vector<RequestTimeline> liveTimelines() const;  // waiting, running, preempted
  EngineTotals totals() const;

  // The KV connector's side of P/D disaggregation (pd_engine.h); between steps only.
  // Blocks of the prefix cache holding `tokens`' full blocks, as an admission's lookup
  // would find them (it leaves the last token out).
  std::vector<int> cachedPrefixBlockIds(const std::vector<int>& tokens) const;
  // KvCacheManager::importPrefix on this engine's pool; nullopt when it has no room.
  std::optional<KvImport> importKvPrefix(int64_t holdId, const std::vector<int>& tokens, int numBlocks);
  void releaseKvHold(int64_t holdId);
  int numFreeKvBlocks() const;
  int kvBlockSize() const;
  Executor& executor();

 private:
  friend struct EngineTesting;  // test hooks (engine_testing.h)
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lwb
