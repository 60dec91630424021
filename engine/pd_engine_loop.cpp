// PdEngine's side for EngineLoop (engine/loop_engine.h): Engine's calls answered by the
// decode instance, or by every instance where the loop means the whole deployment.
#include <algorithm>

#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/pd_engine_impl.h"

namespace lwb {

namespace {
constexpr size_t kMaxPrefillSteps = 10000;  // unread by the loop: the oldest go
}

StepOutput PdEngine::flushFinished() {
  Impl& m = *impl_;
  StepOutput out;
  out.record.step = -1;
  m.shared([&] { m.finishFailed(out); });
  for (size_t j = 0; j < m.ds.size(); ++j) {
    const StepOutput d = m.ds[j]->flushFinished();
    m.report(int(j), d, out);
  }
  out.record.step = -1;
  return out;
}

// Live knobs only: each instance keeps its own structural ones (its threads, its pool).
void PdEngine::setConfig(const EngineConfig& config) {
  Impl& m = *impl_;
  check(!m.ds[0]->config().structuralDiffers(config),
        "P/D disaggregation: " + describeChange(m.ds[0]->config(), config) +
            " rebuilds an instance; start a new prefill/decode pair with it");
  auto live = [&](const EngineConfig& in) {
    EngineConfig out = in;
    for (const Knob& k : knobTable())
      if (!k.structural()) k.set(out, k.get(config));
    return out;
  };
  for (auto& d : m.ds) d->setConfig(live(d->config()));
  m.shared([&] { m.pendingPrefillConfig = live(m.ps[0]->config()); });
  if (m.sim) m.applyPendingPrefillConfig();
}

// On the thread that steps the prefill instances.
void PdEngine::Impl::applyPendingPrefillConfig() {
  std::optional<EngineConfig> c;
  shared([&] { c.swap(pendingPrefillConfig); });
  if (!c) return;
  for (auto& p : ps) {
    EngineConfig own = p->config();
    for (const Knob& k : knobTable())
      if (!k.structural()) k.set(own, k.get(*c));
    p->setConfig(own);
  }
}

// Prefill instance i's step record and view for the loop, taken on the thread that
// stepped it (under `mutex` on the CPU).
void PdEngine::Impl::afterPrefillStep(int i, const StepOutput& out) {
  if (keepSteps) return;
  const Engine& p = *ps[size_t(i)];
  PrefillView v;
  v.kvBlocks = p.kvBlocks();
  v.numRunning = p.numRunning();
  v.numWaiting = p.numWaiting();
  for (RequestTimeline t : p.liveTimelines()) {
    auto id = prefillIds[size_t(i)].find(t.id);
    if (id == prefillIds[size_t(i)].end()) continue;
    t.id = id->second;
    v.live.push_back(std::move(t));
  }
  shared([&] {
    views[size_t(i)] = std::move(v);
    if (out.ranForward()) {
      prefillSteps.push_back(out.record);
      prefillSteps.back().startTime += prefillToDecodeClock;  // on the decode instance's clock, as the rest
    }
    while (prefillSteps.size() > kMaxPrefillSteps) prefillSteps.pop_front();
  });
}

PdEngine::PrefillView PdEngine::prefillView(int i) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->views.at(size_t(i));
}

std::vector<StepRecord> PdEngine::takePrefillSteps() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<StepRecord> out(impl_->prefillSteps.begin(), impl_->prefillSteps.end());
  impl_->prefillSteps.clear();
  return out;
}

void PdEngine::setKeepStepHistory(bool keep) {
  std::lock_guard<std::mutex> lock(impl_->mutex);  // P's thread idles until a request comes
  impl_->keepSteps = keep;
  for (auto* group : {&impl_->ps, &impl_->ds})
    for (auto& e : *group) e->setKeepStepHistory(keep);
}

std::vector<RequestTimeline> PdEngine::liveTimelines() const {
  const Impl& m = *impl_;
  std::vector<RequestTimeline> out;
  for (size_t j = 0; j < m.ds.size(); ++j)
    for (RequestTimeline t : m.ds[j]->liveTimelines()) {
      auto id = m.decodeIds[j].find(t.id);
      if (id == m.decodeIds[j].end()) continue;
      t.id = id->second;
      out.push_back(std::move(t));
    }
  std::lock_guard<std::mutex> lock(m.mutex);
  for (const PdTransfer& x : m.transfers) {
    RequestTimeline t = x.prefill;
    t.id = x.id;
    out.push_back(std::move(t));
  }
  for (const PrefillView& v : m.views) out.insert(out.end(), v.live.begin(), v.live.end());
  return out;
}

void PdEngine::releaseRequest(RequestId id) {
  auto it = impl_->requests.find(id);
  if (it == impl_->requests.end()) return;
  check(it->second.finished, "PdEngine::releaseRequest: request " + std::to_string(id) + " has not finished");
  impl_->requests.erase(it);
}

const std::vector<int>* PdEngine::outputTokenIds(RequestId id) const {
  auto it = impl_->requests.find(id);
  return it == impl_->requests.end() ? nullptr : &it->second.tokenIds;
}

const EngineConfig& PdEngine::config() const { return impl_->ds[0]->config(); }
int PdEngine::maxModelLen() const { return impl_->ds[0]->maxModelLen(); }
const Model& PdEngine::model() const { return impl_->ds[0]->model(); }
DeviceInfo PdEngine::deviceInfo() const { return impl_->ds[0]->deviceInfo(); }
void PdEngine::setRecordKvEvents(bool on) { impl_->ds[0]->setRecordKvEvents(on); }
std::vector<KvCacheEvent> PdEngine::takeKvEvents() { return impl_->ds[0]->takeKvEvents(); }
int64_t PdEngine::numSteps() const { return impl_->ds[0]->numSteps(); }
std::vector<KvBlockInfo> PdEngine::kvBlocks() const { return impl_->ds[0]->kvBlocks(); }
EngineTotals PdEngine::totals() const { return impl_->ds[0]->totals(); }
int PdEngine::numRunning() const { return impl_->ds[0]->numRunning(); }
int PdEngine::numWaiting() const { return impl_->ds[0]->numWaiting(); }
double PdEngine::timeOf(std::chrono::steady_clock::time_point t) const { return impl_->ds[0]->timeOf(t); }

}  // namespace lwb
