#pragma once
// Prefill/decode disaggregation in one process: a prefill instance (P) and a decode
// instance (D), each a real Engine with its own scheduler, KV pool and executor. A
// request is prefilled on P with max_tokens 1 (as vLLM's disaggregation proxy sends it);
// the full blocks of its prompt are then copied from P's pool into D's, registered there
// under the same prefix-cache chain hashes, and D decodes it: D's admission finds them as
// a prefix-cache hit and recomputes only the prompt's last, partial block (at most
// block_size tokens, never the whole prompt), so its first token is the one P sampled
// and TTFT counts from arrival to D's first token, transfer included.
//
// CPU backend: one P and one D; P steps on a thread of its own, D on the caller's, each
// with its own executor threads; the copy is two memcpys (P's block → a staging buffer,
// the "wire"; the buffer → D's block). Sim backend: N prefill and M decode instances of
// the simulated GPU on one virtual clock (the instance whose next event is earliest
// steps first); no data moves and the transfer takes the interconnect's time
// (kvLinkSeconds). Routing (docs/simulator.md): a new request goes to the prefill
// instance with the fewest outstanding prefill tokens, a prefilled one to the decode
// instance with the most free KV blocks; each prefill instance's outgoing link is one
// serial queue, so a transfer waits for the previous one on that link.
//
// When D's pool lacks room for a request's whole sequence, its blocks wait in the
// transfer queue, in arrival order, as vLLM's consumer defers a load it has no blocks
// for; nothing is dropped, and received blocks are held (a KV hold of their own) until
// D's scheduler has admitted the request, so D's other allocations cannot evict them.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/config/kv_transfer_config.h"
#include "engine/engine.h"

namespace lwb {

struct PdConfig {
  EngineConfig prefill;  // the P instance's knobs (threads: its executor's)
  EngineConfig decode;   // the D instance's
  KvTransferConfig transfer;
  // Instances of each (the sim backend; the CPU backend runs 1:1, P:D being threads).
  int numPrefill = 1;
  int numDecode = 1;
};

// `base`'s knobs on `prefill` and `decode`: on the CPU backend ("auto" taken as cpu) one
// instance of each with that many executor threads, on the simulator that many
// instances; base's kv_transfer_config, or the in-process connector over NVLink.
PdConfig makePdConfig(const EngineConfig& base, int prefill, int decode);

// One link's time to carry `bytes` (seconds): latency + bytes / bandwidth.
double kvLinkSeconds(const KvLink& link, int64_t bytes);

class PdEngine {
 public:
  PdEngine(std::shared_ptr<const Model> model, const PdConfig& config);
  ~PdEngine();
  PdEngine(const PdEngine&) = delete;
  PdEngine& operator=(const PdEngine&) = delete;

  // The same contract as Engine's; ids are this engine's own, in submission order.
  RequestId addRequest(RequestInput input);
  // Wherever the request is: on D it is aborted there; waiting for D, it leaves the
  // transfer queue; on P, it ends when P finishes its prefill. Reported by a later step
  // (finish_reason abort); its blocks are released on both sides.
  void abortRequest(RequestId id);
  bool hasUnfinishedRequests() const;
  // One step of D (CPU: P steps meanwhile on its own thread), or on the simulator one
  // step of whichever instance's next event comes first. Deltas and finishes carry this
  // engine's ids; P's tokens are not reported (the first token reported is D's).
  StepOutput step();
  double now() const;
  bool simulated() const;
  void advanceClock(double seconds);
  // P's queue and prefill, the transfer and D's decode in one record, on D's clock.
  const RequestTimeline* timeline(RequestId id) const;

  // Instance i of each role (0 ≤ i < numPrefill / numDecode of the config).
  // What EngineLoop needs beside the above (engine/loop_engine.h), in Engine's terms: the
  // knobs, model, device, counters and KV pool are the decode instance's (instance 0);
  // live timelines span every instance and the transfer queue. setConfig applies live
  // knobs to every instance; a structural change throws (build a new PdEngine).
  RequestId addRequestWithId(RequestId id, RequestInput input);
  StepOutput flushFinished();
  void setConfig(const EngineConfig& config);
  const EngineConfig& config() const;
  int maxModelLen() const;
  const Model& model() const;
  DeviceInfo deviceInfo() const;
  void releaseRequest(RequestId id);
  void setKeepStepHistory(bool keep);
  void setRecordKvEvents(bool on);
  std::vector<KvCacheEvent> takeKvEvents();
  int64_t numSteps() const;
  const std::vector<int>* outputTokenIds(RequestId id) const;  // prompt and output, as Engine's
  std::vector<KvBlockInfo> kvBlocks() const;
  std::vector<RequestTimeline> liveTimelines() const;
  EngineTotals totals() const;
  int numRunning() const;
  int numWaiting() const;  // on the decode instance
  double timeOf(std::chrono::steady_clock::time_point t) const;
  // Prefill instance i as of its last step (taken on its thread on the CPU): its KV pool
  // and counts; and every prefill instance's step records since the last call
  // (Instance::Prefill, instanceIndex i), kept only while the step history is off
  // (EngineLoop publishes them; at most 10,000).
  struct PrefillView {
    std::vector<KvBlockInfo> kvBlocks;
    int numRunning = 0, numWaiting = 0;
    std::vector<RequestTimeline> live;  // in this engine's ids
  };
  PrefillView prefillView(int i = 0) const;
  std::vector<StepRecord> takePrefillSteps();

  Engine& prefillEngine(int i = 0);
  Engine& decodeEngine(int i = 0);
  int numPrefillInstances() const;
  int numDecodeInstances() const;
  int numWaitingTransfers() const;  // prefilled, waiting for room in D's pool
  int numKvHolds() const;           // received blocks not yet admitted by D

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lwb
