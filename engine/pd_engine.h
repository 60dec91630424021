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
// CPU backend: P steps on a thread of its own, D on the caller's, each with its own
// executor threads; the copy is two memcpys (P's block → a staging buffer, the "wire";
// the buffer → D's block). Sim backend: two simulated GPUs on one virtual clock (the
// engine whose next event is earlier steps first); no data moves and the transfer takes
// the interconnect's time (kvLinkSeconds).
//
// When D's pool lacks room for a request's whole sequence, its blocks wait in the
// transfer queue, in arrival order, as vLLM's consumer defers a load it has no blocks
// for; nothing is dropped, and received blocks are held (a KV hold of their own) until
// D's scheduler has admitted the request, so D's other allocations cannot evict them.
#include <memory>
#include <string>
#include <vector>

#include "engine/config/kv_transfer_config.h"
#include "engine/engine.h"

namespace lwb {

struct PdConfig {
  EngineConfig prefill;  // the P instance's knobs (threads: its executor's)
  EngineConfig decode;   // the D instance's
  KvTransferConfig transfer;
};

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

  Engine& prefillEngine();
  Engine& decodeEngine();
  int numWaitingTransfers() const;  // prefilled, waiting for room in D's pool
  int numKvHolds() const;           // received blocks not yet admitted by D

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lwb
