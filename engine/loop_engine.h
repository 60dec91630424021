#pragma once
// What EngineLoop drives: a colocated Engine or a prefill/decode pair (PdEngine), behind
// the calls the loop makes, so the loop holds either without a branch per call. Private
// to the engine root (engine_loop*.cpp).
#include <memory>

#include "engine/engine.h"
#include "engine/pd_engine.h"

namespace lwb {

struct EngineSnapshot;

class LoopEngine {
 public:
  virtual ~LoopEngine() = default;
  virtual RequestId addRequestWithId(RequestId id, RequestInput input) = 0;
  virtual void abortRequest(RequestId id) = 0;
  virtual bool hasUnfinishedRequests() const = 0;
  virtual StepOutput step() = 0;
  virtual StepOutput flushFinished() = 0;
  virtual void setConfig(const EngineConfig& config) = 0;
  virtual const EngineConfig& config() const = 0;
  virtual int maxModelLen() const = 0;
  virtual const Model& model() const = 0;
  virtual DeviceInfo deviceInfo() const = 0;
  virtual void releaseRequest(RequestId id) = 0;
  virtual void setKeepStepHistory(bool keep) = 0;
  virtual void setRecordKvEvents(bool on) = 0;
  virtual std::vector<KvCacheEvent> takeKvEvents() = 0;
  virtual int64_t numSteps() const = 0;
  virtual const RequestTimeline* timeline(RequestId id) const = 0;
  virtual const std::vector<int>* outputTokenIds(RequestId id) const = 0;
  virtual std::vector<KvBlockInfo> kvBlocks() const = 0;
  virtual std::vector<RequestTimeline> liveTimelines() const = 0;
  virtual EngineTotals totals() const = 0;
  virtual double now() const = 0;
  virtual bool simulated() const = 0;
  virtual void advanceClock(double seconds) = 0;
  virtual double timeOf(std::chrono::steady_clock::time_point t) const = 0;
  virtual int numRunning() const = 0;
  virtual int numWaiting() const = 0;
  // The colocated Engine (EngineLoop::runOnEngine's target), nullptr for a P/D pair.
  virtual Engine* colocated() { return nullptr; }
  // P/D only: the prefill instance's steps since the last call, and its part of a snapshot.
  virtual std::vector<StepRecord> takePrefillSteps() { return {}; }
  virtual void fillSnapshot(EngineSnapshot&) const {}
};

// `pd` set: a PdEngine of it (its decode config's model), else an Engine of `config`.
std::unique_ptr<LoopEngine> makeLoopEngine(std::shared_ptr<const Model> model, const EngineConfig& config,
                                           const std::optional<PdConfig>& pd);

}  // namespace lwb
