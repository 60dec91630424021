// PdEngine on the CPU backend: one prefill instance stepping on a thread of its own,
// one decode instance on the caller's.
#include <chrono>

#include "engine/pd_engine_impl.h"

namespace lwb {

// P's thread: takes new requests (kept in `inbox` until P finishes them, for D), steps P
// while it has work, sleeps otherwise.
void PdEngine::Impl::prefillLoop() {
  Engine& p = *ps[0];
  size_t numTaken = 0;  // inbox entries already on P (the inbox keeps them until they finish)
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] { return stop || numTaken < inbox.size() || p.hasUnfinishedRequests(); });
      if (stop) return;
      for (; numTaken < inbox.size(); ++numTaken) {
        RequestInput onPrefill = inbox[numTaken].second;
        onPrefill.sampling.maxTokens = 1;
        onPrefill.sampling.minTokens = 0;
        prefillIds[0][p.addRequest(std::move(onPrefill))] = inbox[numTaken].first;
      }
    }
    const size_t before = prefillIds[0].size();
    stepPrefill(0);
    std::lock_guard<std::mutex> lock(mutex);
    numTaken -= before - prefillIds[0].size();  // finished ones left the inbox
  }
}

StepOutput PdEngine::Impl::stepCpu() {
  StepOutput out;
  out.record.step = -1;
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (admitFront()) {
    }
    if (!ds[0]->hasUnfinishedRequests() && failed.empty()) {
      // Nothing to decode: wait briefly for P to hand something over.
      wake.wait_for(lock, std::chrono::milliseconds(2));
      while (admitFront()) {
      }
    }
    finishFailed(out);
  }
  if (ds[0]->hasUnfinishedRequests()) report(0, ds[0]->step(), out);
  releaseAdmitted();
  return out;
}

}  // namespace lwb
