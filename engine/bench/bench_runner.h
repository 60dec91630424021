#pragma once
// Runs a synthetic workload through an in-process Engine: the caller's thread calls
// engine.step() in a loop and adds each request once its arrival time has passed (no
// EngineLoop thread, so no hand-off overhead in the numbers). Shared by
// `llm-workbench bench` and bench/bench_serving; arrivals paced by ArrivalPacer.
#include <atomic>
#include <functional>
#include <vector>

#include "engine/bench/bench_report.h"
#include "engine/bench/workload.h"
#include "engine/common/error.h"

namespace lwb {

class Engine;
class PdEngine;
class ReplicatedEngine;

struct BenchRun {
  BenchReport report;
  std::vector<StepRecord> steps;  // the run's steps only (the warm-up is left out)
};

// numFinished of numTotal requests done; called after every step that finished some.
using BenchProgress = std::function<void(int numFinished, int numTotal)>;

// max_concurrency as `vllm bench serve` means it: at most this many requests in flight
// (0 = no limit); a request due while the limit is reached waits, and its latencies
// count from when it is sent.
struct BenchRunOptions {
  int maxConcurrency = 0;
  // Checked between steps: once it reads true the run stops and throws BenchCancelled
  // (the window's Capacity view cancels a sweep through it; the engine is the caller's).
  const std::atomic<bool>* cancel = nullptr;
};

struct BenchCancelled : Error {
  BenchCancelled() : Error("the benchmark was cancelled") {}
};

// Before timing, one short warm-up request (its own prompt, so it seeds no prefix the
// workload uses) runs to completion, as `vllm bench serve`'s initial test prompt does.
// Times are measured from each request's scheduled arrival (a server would have
// received it then, and queued it until the current step ended). A simulated engine
// never waits: its virtual clock jumps to the next arrival. Throws lwb::Error
// when the engine refuses a request, BenchCancelled when options.cancel is set.
BenchRun runServingBenchmark(Engine& engine, const std::vector<SyntheticRequest>& workload,
                             const BenchProgress& progress = {}, const BenchRunOptions& options = {});
// The same workload on a prefill/decode deployment (pd_engine.h): records in workload
// order, each with its KV transfer; `steps` are the decode instances'.
BenchRun runServingBenchmark(PdEngine& engine, const std::vector<SyntheticRequest>& workload,
                             const BenchProgress& progress = {}, const BenchRunOptions& options = {});
// ... and on colocated replicas (replicated_engine.h): `steps` are every replica's.
BenchRun runServingBenchmark(ReplicatedEngine& engine, const std::vector<SyntheticRequest>& workload,
                             const BenchProgress& progress = {}, const BenchRunOptions& options = {});

}  // namespace lwb
