#include "engine/replicated_engine.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/common/error.h"
#include "engine/config/knobs.h"

namespace lwb {

ReplicatedEngine::ReplicatedEngine(std::shared_ptr<const Model> model, const EngineConfig& config, int numReplicas) {
  check(config.executor.backend == "sim", "replicas: " + std::string(knob::kBackend) + " " + config.executor.backend +
                                              ": colocated replicas run on the sim backend");
  check(numReplicas >= 1 && numReplicas <= 64,
        "replicas: " + std::to_string(numReplicas) + " instances; expected 1..64");
  for (int i = 0; i < numReplicas; ++i) replicas_.push_back(std::make_unique<Engine>(model, config));
  ours_.resize(replicas_.size());
}

RequestId ReplicatedEngine::addRequest(RequestInput input) {
  if (!input.arrivalTime) input.arrivalTime = now();
  auto load = [](const Engine& e) { return e.numRunning() + e.numWaiting(); };
  size_t i = 0;
  for (size_t k = 1; k < replicas_.size(); ++k)
    if (load(*replicas_[k]) < load(*replicas_[i])) i = k;
  Engine& e = *replicas_[i];
  if (!e.hasUnfinishedRequests() && e.now() < *input.arrivalTime) e.advanceClock(*input.arrivalTime - e.now());
  const RequestId theirs = e.addRequest(std::move(input));
  const RequestId id = nextId_++;
  where_[id] = {int(i), theirs};
  ours_[i][theirs] = id;
  return id;
}

void ReplicatedEngine::abortRequest(RequestId id) {
  auto it = where_.find(id);
  if (it != where_.end()) replicas_[size_t(it->second.first)]->abortRequest(it->second.second);
}

bool ReplicatedEngine::hasUnfinishedRequests() const { return !where_.empty(); }

double ReplicatedEngine::now() const {
  double busy = std::numeric_limits<double>::infinity(), latest = 0;
  for (const auto& e : replicas_) {
    if (e->hasUnfinishedRequests()) busy = std::min(busy, e->now());
    latest = std::max(latest, e->now());
  }
  lastNow_ = std::max(lastNow_, std::isinf(busy) ? latest : busy);
  return lastNow_;
}

void ReplicatedEngine::advanceClock(double seconds) {
  const double to = now() + seconds;
  for (auto& e : replicas_)
    if (e->now() < to) e->advanceClock(to - e->now());
  lastNow_ = std::max(lastNow_, to);
}

const RequestTimeline* ReplicatedEngine::timeline(RequestId id) const {
  auto it = finished_.find(id);
  return it == finished_.end() ? nullptr : &it->second;
}

StepOutput ReplicatedEngine::step() {
  int i = -1;
  for (size_t k = 0; k < replicas_.size(); ++k)
    if (replicas_[k]->hasUnfinishedRequests() && (i < 0 || replicas_[k]->now() < replicas_[size_t(i)]->now()))
      i = int(k);
  if (i < 0) {
    StepOutput none;
    none.record.step = -1;
    return none;
  }
  Engine& e = *replicas_[size_t(i)];
  std::map<RequestId, RequestId>& ids = ours_[size_t(i)];
  StepOutput out = e.step();
  for (TokenDelta& d : out.deltas) d.id = ids.at(d.id);
  for (RequestId& theirs : out.newlyFinished) {
    const RequestId id = ids.at(theirs);
    RequestTimeline t = *e.timeline(theirs);
    t.id = id;
    finished_[id] = std::move(t);
    e.releaseRequest(theirs);
    ids.erase(theirs);
    where_.erase(id);
    theirs = id;
  }
  return out;
}

}  // namespace lwb
