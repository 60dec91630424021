#pragma once
// The engine on its own thread. Any thread may submit, abort and change knobs; the GUI
// pulls at a fixed rate: events since the last pull (token deltas, finished requests,
// step records) and the latest immutable snapshot. No callback per token.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/common/bounded_queue.h"
#include "engine/engine.h"
#include "engine/pd_engine.h"
#include "engine/kv/kv_events.h"

namespace lwb {

// One instance of a prefill/decode pair at one instant: its KV pool and counts.
struct PdInstanceSnapshot {
  std::vector<KvBlockInfo> kvBlocks;  // index = block id
  int numRunning = 0, numWaiting = 0;
  int64_t numPreemptions = 0;  // decode instances only (0 on the prefill side)
};

// Everything the views need at one instant, immutable once published.
struct EngineSnapshot {
  int64_t step = 0;
  double time = 0;
  EngineConfig config;                     // the knobs in force
  int maxModelLen = 0;                     // effective (config's, or the model's)
  DeviceInfo device;
  std::string modelDir;
  bool paused = false;
  int numRunning = 0, numWaiting = 0;
  std::vector<KvBlockInfo> kvBlocks;       // index = block id
  std::vector<RequestTimeline> live;       // waiting / running / preempted requests
  EngineTotals totals;                     // running counters (prefix cache, preemptions, tokens, ...)
  // P/D disaggregation (pd_engine.h): the fields above are decode instance 0's (its KV
  // pool, its counters; `live` spans every instance); these are each instance's own.
  bool disaggregated = false;
  std::vector<PdInstanceSnapshot> prefillInstances;  // [numPrefill]
  std::vector<PdInstanceSnapshot> decodeInstances;   // [numDecode]; [0] repeats the fields above
  int numTransfers = 0;                              // prefilled, waiting for room on a decode instance
};

struct ConfigChangedEvent {
  double time = 0;
  EngineConfig oldConfig, newConfig;
  std::string description;  // "max_num_batched_tokens 2048 → 512"
};
struct RequestFinishedEvent {
  RequestTimeline timeline;  // timeline.tag: which front-end sent it ("chat 1", "load", "api")
  std::vector<int> outputTokenIds;
};
struct EngineErrorEvent {
  double time = 0;
  std::string message;      // a step failed (its requests finish with "error"), or a knob change
  // Set when a knob change failed: the knobs still in force (the previous ones).
  std::optional<EngineConfig> configInForce;
};
struct ModelLoadedEvent {
  std::string modelDir;
  std::string error;        // empty on success; else the old model keeps running
};
using EngineEvent = std::variant<TokenDelta, StepRecord, RequestFinishedEvent, ConfigChangedEvent,
                                 EngineErrorEvent, ModelLoadedEvent>;

// A second (third, ...) reader of the event stream, beside drainEvents(): every event
// the loop publishes is copied into each live subscriber's own bounded queue, and a
// waiting thread (an HTTP handler) sleeps on it instead of polling. Dropping the last
// shared_ptr unsubscribes. A full queue drops step records first: a step record is only
// a chart point; deltas and finishes carry a client's answer.
class EventSubscriber : public BoundedQueue<EngineEvent> {
 public:
  explicit EventSubscriber(size_t capacity)
      : BoundedQueue(capacity, [](const EngineEvent& e) { return std::holds_alternative<StepRecord>(e); }) {}
};

// One reader's queue of KV-cache event batches (the server's vLLM-style publisher reads
// one). Full: the oldest batch goes, and a reader that saw a drop must resynchronise.
using KvEventStream = BoundedQueue<KvEventBatch>;

class EngineLoop {
 public:
  // Builds the Engine on the loop's thread; throws lwb::Error if the first build fails.
  EngineLoop(std::shared_ptr<const Model> model, const EngineConfig& config);
  // A prefill/decode pair instead (one prefill and one decode instance): the same door;
  // step records carry their instance, setConfig applies live knobs to both and refuses
  // structural ones, the KV events are the decode instance's.
  EngineLoop(std::shared_ptr<const Model> model, const PdConfig& pd);
  ~EngineLoop();  // stops and joins the thread; in-flight requests are aborted

  // Thread-safe. Validation errors throw lwb::Error at once; the id is valid at once.
  RequestId submit(RequestInput input);
  void abort(RequestId id);
  void abortAll();
  // Runs `fn` on the loop's thread between two steps, in inbox order with submissions:
  // the KV connector of P/D across processes holds, reads and writes blocks through it
  // (Engine is not thread-safe). An exception it throws becomes an EngineErrorEvent. A
  // loop that stops first drops it unrun (a promise it captured then breaks). A loop
  // running a prefill/decode pair has no one Engine: the call becomes that error event.
  void runOnEngine(std::function<void(Engine&)> fn);
  // Non-structural changes apply at the next step; structural ones drain (or, with
  // abortInFlight, abort) running work and rebuild. Invalid values throw lwb::Error.
  // A change that fails on the engine thread (backend cuda without a device) leaves the
  // previous knobs in force and arrives as an EngineErrorEvent with configInForce.
  void setConfig(const EngineConfig& config, bool abortInFlight = false);
  // The knobs in force (the engine's), not the last requested: a change still queued or
  // draining shows once it applies.
  EngineConfig config() const;
  std::optional<PdConfig> pdConfig() const;  // set when the loop runs a prefill/decode pair
  int maxModelLen() const;  // the effective max_model_len in force
  void setPaused(bool paused);
  // A simulated engine (backend sim): how fast its virtual clock runs against the wall
  // clock, 1 = real time, 10 = ten times faster, 0 = as fast as the host can step. The
  // loop sleeps after each step until the wall clock catches up, and while idle before a
  // request submitted with a later arrivalTime. No effect on a real engine.
  void setSimulationSpeed(double speed);
  // Swaps the model in the background; the old one keeps serving until the new one
  // is loaded; the outcome arrives as ModelLoadedEvent.
  void loadModel(const std::string& dir);

  // Pull side.
  std::vector<EngineEvent> drainEvents();               // bounded queue: oldest steps dropped first
  std::shared_ptr<const EngineSnapshot> snapshot() const;  // latest published
  // Another consumer of the same events (the window keeps drainEvents()); events from
  // now on. The loop holds it weakly: drop the pointer to unsubscribe.
  std::shared_ptr<EventSubscriber> subscribe(size_t capacity = 100000);
  // KV-cache events (vLLM's BlockStored / BlockRemoved / AllBlocksCleared), recorded only
  // while a stream is alive. A new stream first gets AllBlocksCleared and one
  // BlockStored per block cached now (so do the others: they resynchronise with it).
  std::shared_ptr<KvEventStream> subscribeKvEvents(size_t capacity = 100000);
  // The model serving now (front-ends tokenize with it).
  std::shared_ptr<const Model> model() const;

 private:
  EngineLoop(std::shared_ptr<const Model> model, const EngineConfig& config, const std::optional<PdConfig>& pd);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lwb
