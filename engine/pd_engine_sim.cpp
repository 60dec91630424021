// PdEngine on the simulator: N prefill and M decode instances on one virtual clock. Each
// step() handles the earliest event: a prefill instance's step, a transfer landing (when
// a decode instance can take it), or a decode instance's step; ties go to prefill, then
// to the landing, so that work reaches D as early as it can.
#include <algorithm>

#include "engine/pd_engine_impl.h"

namespace lwb {

namespace {

// The busy instance with the earliest clock, or -1.
int earliestBusy(const std::vector<std::unique_ptr<Engine>>& group) {
  int best = -1;
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i]->hasUnfinishedRequests() && (best < 0 || group[i]->now() < group[size_t(best)]->now()))
      best = int(i);
  return best;
}

void advanceTo(Engine& e, double t) {
  if (e.now() < t) e.advanceClock(t - e.now());
}

}  // namespace

// A new request goes to the prefill instance with the fewest outstanding prefill tokens
// (a prefill's time grows with its tokens, not with its count); ties to the lowest index.
RequestId PdEngine::Impl::addSimRequest(RequestId id, RequestInput input) {
  if (!input.arrivalTime) input.arrivalTime = simNow();
  size_t i = 0;
  for (size_t k = 1; k < ps.size(); ++k)
    if (outstandingPrefillTokens[k] < outstandingPrefillTokens[i]) i = k;
  Engine& p = *ps[i];
  if (!p.hasUnfinishedRequests()) advanceTo(p, *input.arrivalTime);  // an idle clock catches up
  RequestInput onPrefill = input;
  onPrefill.sampling.maxTokens = 1;  // as vLLM's proxy sends it to the prefill instance
  onPrefill.sampling.minTokens = 0;
  prefillIds[i][p.addRequest(std::move(onPrefill))] = id;
  outstandingPrefillTokens[i] += int64_t(input.promptTokenIds.size());
  inbox.emplace_back(id, std::move(input));  // kept for D's parameters
  return id;
}

// When the oldest transfer lands, if a decode instance can take it then; else never (it
// waits for a decode step to free blocks, and is retried after each).
double PdEngine::Impl::nextTransferTime() const {
  if (transfers.empty() || chooseDecode(transfers.front()) < 0) return kNever;
  return transfers.front().readyTime;
}

// The time of the next event; with none pending, the latest clock (the last step's end).
double PdEngine::Impl::simNow() const {
  double t = nextTransferTime();
  for (auto* group : {&ps, &ds})
    for (const auto& e : *group)
      if (e->hasUnfinishedRequests()) t = std::min(t, e->now());
  if (t == kNever) {
    t = 0;
    for (auto* group : {&ps, &ds})
      for (const auto& e : *group) t = std::max(t, e->now());
  }
  lastNow = std::max(lastNow, t);
  return lastNow;
}

// The oldest transfer lands on the decode instance with the most free blocks. False when
// it found no room after all (it waits for a decode step).
bool PdEngine::Impl::landFront() {
  for (auto& d : ds)
    if (!d->hasUnfinishedRequests()) advanceTo(*d, transfers.front().readyTime);  // an idle one waits for it
  return admit(chooseDecode(transfers.front()));
}

StepOutput PdEngine::Impl::stepSim() {
  StepOutput out;
  out.record.step = -1;
  const int i = earliestBusy(ps);
  const int j = earliestBusy(ds);
  const double tP = i >= 0 ? ps[size_t(i)]->now() : kNever;
  const double tD = j >= 0 ? ds[size_t(j)]->now() : kNever;
  const double tX = nextTransferTime();
  if (i >= 0 && tP <= tX && tP <= tD) {
    stepPrefill(i);
  } else {
    const bool landed = tX != kNever && tX <= tD && landFront();
    if (!landed && j >= 0) {
      report(j, ds[size_t(j)]->step(), out);
      releaseAdmitted();
    }
  }
  finishFailed(out);
  return out;
}

}  // namespace lwb
