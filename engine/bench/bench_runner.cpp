#include "engine/bench/bench_runner.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <unordered_map>

#include "engine/bench/arrival_pacer.h"
#include "engine/engine.h"
#include "engine/pd_engine.h"
#include "engine/replicated_engine.h"

namespace lwb {
namespace {

template <class E>
void warmUp(E& engine, const SyntheticRequest& sample) {
  RequestInput input;
  input.promptTokenIds.assign(8, sample.promptTokenIds.back());
  input.promptTokenIds.front() = sample.promptTokenIds.front();  // BOS
  input.sampling = sample.sampling;
  input.sampling.maxTokens = 2;
  input.tag = "bench warm-up";
  engine.addRequest(std::move(input));
  while (engine.hasUnfinishedRequests()) engine.step();
}

constexpr double kClockSlack = 1e-9;  // seconds

// Short sleeps: a request that arrives meanwhile is never added much later than due.
void sleepFor(double seconds) {
  const double wait = std::min(seconds, 0.1);
  if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
}

// One loop for a colocated Engine and a disaggregated PdEngine (the same calls).
template <class E>
BenchRun runWorkload(E& engine, const std::vector<SyntheticRequest>& workload, const BenchProgress& progress,
                     const BenchRunOptions& options) {
  if (!workload.empty()) warmUp(engine, workload.front());
  BenchRun run;
  const double t0 = engine.now();
  const int total = static_cast<int>(workload.size());
  std::vector<RequestId> ids;
  std::vector<double> sentAt;  // seconds from t0: the scheduled arrival, or later when held back
  std::unordered_map<RequestId, std::vector<int>> outputs;
  ArrivalPacer pacer(workload);
  size_t numDue = 0;  // workload[0, numDue) are due; [ids.size(), numDue) wait for a slot
  int numFinished = 0;
  auto inFlight = [&] { return static_cast<int>(ids.size()) - numFinished; };
  while (!pacer.allTaken() || ids.size() < numDue || engine.hasUnfinishedRequests()) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw BenchCancelled();
    const size_t heldBack = numDue;  // due before this iteration and not sent: waited for a slot
    const double now = engine.now() - t0;
    // A virtual clock advanced by exactly the wait can land an ulp short of the arrival
    // (now - t0 rounds): a nanosecond of slack, or it would wait for ever in ulp steps.
    numDue = pacer.takeDue(engine.simulated() ? now + kClockSlack : now).last;
    while (ids.size() < numDue && (options.maxConcurrency <= 0 || inFlight() < options.maxConcurrency)) {
      const SyntheticRequest& r = workload[ids.size()];
      // A request that waited for a slot is timed from when it is sent, as vLLM's client does.
      sentAt.push_back(ids.size() < heldBack ? now : r.arrivalTime);
      ids.push_back(engine.addRequest({r.promptTokenIds, r.sampling, 0, "bench"}));
    }
    if (!engine.hasUnfinishedRequests()) {
      if (auto wait = pacer.timeUntilNext(engine.now() - t0)) {
        if (engine.simulated()) engine.advanceClock(std::max(*wait, kClockSlack));  // jump to the next arrival
        else sleepFor(*wait);
      }
      continue;
    }
    const StepOutput out = engine.step();
    if (out.ranForward()) run.steps.push_back(out.record);  // else only finish reports
    for (const auto& d : out.deltas) {
      auto& tokens = outputs[d.id];
      tokens.insert(tokens.end(), d.newTokenIds.begin(), d.newTokenIds.end());
    }
    numFinished += static_cast<int>(out.newlyFinished.size());
    if (progress && !out.newlyFinished.empty()) progress(std::min(numFinished, total), total);
  }
  const double duration = engine.now() - t0;

  std::vector<BenchRequestRecord> records(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (const RequestTimeline* t = engine.timeline(ids[i])) records[i].timeline = *t;
    records[i].timeline.arrivalTime = t0 + sentAt[i];
    records[i].outputTokenIds = std::move(outputs[ids[i]]);
  }
  run.report = makeBenchReport(std::move(records), run.steps, duration);
  return run;
}

}  // namespace

BenchRun runServingBenchmark(Engine& engine, const std::vector<SyntheticRequest>& workload,
                             const BenchProgress& progress, const BenchRunOptions& options) {
  return runWorkload(engine, workload, progress, options);
}

BenchRun runServingBenchmark(PdEngine& engine, const std::vector<SyntheticRequest>& workload,
                             const BenchProgress& progress, const BenchRunOptions& options) {
  return runWorkload(engine, workload, progress, options);
}

BenchRun runServingBenchmark(ReplicatedEngine& engine, const std::vector<SyntheticRequest>& workload,
                             const BenchProgress& progress, const BenchRunOptions& options) {
  return runWorkload(engine, workload, progress, options);
}

}  // namespace lwb
