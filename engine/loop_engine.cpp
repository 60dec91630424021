#include "engine/loop_engine.h"

#include "engine/engine_loop.h"

namespace lwb {

namespace {

// Forwards every call to E, which spells them as Engine does.
template <class E>
class LoopEngineOf : public LoopEngine {
 public:
  explicit LoopEngineOf(std::unique_ptr<E> e) : e_(std::move(e)) {}
  RequestId addRequestWithId(RequestId id, RequestInput in) override { return e_->addRequestWithId(id, std::move(in)); }
  void abortRequest(RequestId id) override { e_->abortRequest(id); }
  bool hasUnfinishedRequests() const override { return e_->hasUnfinishedRequests(); }
  StepOutput step() override { return e_->step(); }
  StepOutput flushFinished() override { return e_->flushFinished(); }
  void setConfig(const EngineConfig& c) override { e_->setConfig(c); }
  const EngineConfig& config() const override { return e_->config(); }
  int maxModelLen() const override { return e_->maxModelLen(); }
  const Model& model() const override { return e_->model(); }
  DeviceInfo deviceInfo() const override { return e_->deviceInfo(); }
  void releaseRequest(RequestId id) override { e_->releaseRequest(id); }
  void setKeepStepHistory(bool keep) override { e_->setKeepStepHistory(keep); }
  void setRecordKvEvents(bool on) override { e_->setRecordKvEvents(on); }
  std::vector<KvCacheEvent> takeKvEvents() override { return e_->takeKvEvents(); }
  int64_t numSteps() const override { return e_->numSteps(); }
  const RequestTimeline* timeline(RequestId id) const override { return e_->timeline(id); }
  const std::vector<int>* outputTokenIds(RequestId id) const override { return e_->outputTokenIds(id); }
  std::vector<KvBlockInfo> kvBlocks() const override { return e_->kvBlocks(); }
  std::vector<RequestTimeline> liveTimelines() const override { return e_->liveTimelines(); }
  EngineTotals totals() const override { return e_->totals(); }
  double now() const override { return e_->now(); }
  bool simulated() const override { return e_->simulated(); }
  void advanceClock(double seconds) override { e_->advanceClock(seconds); }
  double timeOf(std::chrono::steady_clock::time_point t) const override { return e_->timeOf(t); }
  int numRunning() const override { return e_->numRunning(); }
  int numWaiting() const override { return e_->numWaiting(); }

 protected:
  std::unique_ptr<E> e_;
};

class ColocatedLoopEngine : public LoopEngineOf<Engine> {
 public:
  using LoopEngineOf::LoopEngineOf;
  Engine* colocated() override { return e_.get(); }
};

class PdLoopEngine : public LoopEngineOf<PdEngine> {
 public:
  using LoopEngineOf::LoopEngineOf;
  std::vector<StepRecord> takePrefillSteps() override { return e_->takePrefillSteps(); }
  void fillSnapshot(EngineSnapshot& s) const override {
    s.disaggregated = true;
    for (int i = 0; i < e_->numPrefillInstances(); ++i) {
      PdEngine::PrefillView v = e_->prefillView(i);
      s.prefillInstances.push_back({std::move(v.kvBlocks), v.numRunning, v.numWaiting});
    }
    // The decode instances step on the loop's thread (CPU and sim alike): read them here.
    for (int j = 0; j < e_->numDecodeInstances(); ++j) {
      const Engine& d = e_->decodeEngine(j);
      s.decodeInstances.push_back({d.kvBlocks(), d.numRunning(), d.numWaiting(), d.totals().preemptions});
    }
    s.numTransfers = e_->numWaitingTransfers();
  }
};

}  // namespace

std::unique_ptr<LoopEngine> makeLoopEngine(std::shared_ptr<const Model> model, const EngineConfig& config,
                                           const std::optional<PdConfig>& pd) {
  if (!pd) return std::make_unique<ColocatedLoopEngine>(std::make_unique<Engine>(std::move(model), config));
  return std::make_unique<PdLoopEngine>(std::make_unique<PdEngine>(std::move(model), *pd));
}

}  // namespace lwb
