#pragma once
// N colocated instances of one simulated GPU, each a whole Engine (scheduler, KV pool,
// executor), behind one front door: the baseline a P/D deployment of the same number of
// GPUs is compared with (`bench --backend sim --replicas 2` against `--pd 1:1`). All on
// one virtual clock: the busy replica whose clock is earliest steps first. A new request
// goes to the least-loaded replica, the fewest unfinished (waiting + running) requests,
// ties to the lowest index: the count vLLM's data-parallel load balancer weighs.
#include <map>
#include <memory>
#include <vector>

#include "engine/engine.h"

namespace lwb {

class ReplicatedEngine {
 public:
  // The sim backend only (on the CPU the replicas would share one caller's thread, so
  // their steps would not overlap as separate devices' do): throws lwb::Error otherwise.
  ReplicatedEngine(std::shared_ptr<const Model> model, const EngineConfig& config, int numReplicas);

  // The same contract as Engine's; ids are this engine's own, in submission order.
  RequestId addRequest(RequestInput input);
  void abortRequest(RequestId id);
  bool hasUnfinishedRequests() const;
  StepOutput step();  // one step of the busy replica with the earliest clock
  double now() const;  // the earliest busy clock; idle, the latest clock
  bool simulated() const { return true; }
  void advanceClock(double seconds);
  const RequestTimeline* timeline(RequestId id) const;  // finished requests

  Engine& replica(int i) { return *replicas_.at(size_t(i)); }
  int numReplicas() const { return int(replicas_.size()); }

 private:
  std::vector<std::unique_ptr<Engine>> replicas_;
  std::map<RequestId, std::pair<int, RequestId>> where_;  // ours → (replica, its id)
  std::vector<std::map<RequestId, RequestId>> ours_;      // per replica: its id → ours
  std::map<RequestId, RequestTimeline> finished_;         // in our ids
  RequestId nextId_ = 1;
  mutable double lastNow_ = 0;  // now() never goes back
};

}  // namespace lwb
