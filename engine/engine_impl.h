#pragma once
// Engine::Impl, the engine's private state, apart from engine.cpp so the step pipeline and
// the request lifecycle read on their own there. Included by engine.cpp only.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/exec/executor.h"
#include "engine/metrics/caching_metrics.h"
#include "engine/model/model.h"
#include "engine/model/output_text.h"
#include "engine/sample/sampler.h"
#include "engine/sched/request.h"
#include "engine/sched/scheduler.h"
#include "engine/spec/proposer.h"

namespace lwb {

// Engine-side state of one request: the scheduler's Request plus sampling and text.
struct EngineRequest {
  Request req;
  std::unique_ptr<RequestSampler> sampler;
  std::unique_ptr<OutputText> text;
};

// What appending a sampled token found: a finish reason (stop token or string, length)
// and the text that became safe to show.
struct AppendResult {
  FinishReason reason = FinishReason::None;
  std::string text;
};

// One row of a step without drafts, sampled and appended on a host thread (sampleRows),
// then published in the plan's order.
struct SampledRow {
  EngineRequest* er = nullptr;
  int row = 0;               // in the step's logits
  SampleResult sample;
  bool appended = false;     // the token is in the request (its stop checks may have thrown)
  AppendResult append;
  std::string error;         // what sampleToken or appendToken threw
};

struct Engine::Impl {
  std::shared_ptr<const Model> model;
  EngineConfig config;          // the knobs as set (0 = vLLM's default kept; live ones: from the next step on)
  bool configPending = false;   // a live change waiting for the next step
  int pendingMaxModelLen = 0;   // its effective max_model_len
  ConfigInForce inForce;        // what steps run with: `config` resolved; the scheduler reads it
  std::unique_ptr<Executor> executor;
  DeviceInfo device;            // the executor's, when it was created (resolves 0 knobs)
  std::unique_ptr<Scheduler> scheduler;
  std::map<RequestId, std::unique_ptr<EngineRequest>> requests;  // finished ones kept until released
  StepOutput pending;           // finishes outside a step, reported by the next one
  KvEventLog kvEvents;          // outlives the pools buildKv() makes
  std::vector<StepRecord> steps;  // when keepStepHistory
  bool keepStepHistory = true;
  int64_t numSteps = 0;
  EngineTotals totals;
  CachingMetrics recentPrefix;  // vLLM's logged (recent) prefix-cache hit rate
  std::vector<int> modelStopIds;
  RequestId nextId = 1;
  uint64_t seedBase = std::random_device{}();
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::vector<float> scratch;
  ForwardResult result;  // kept across steps: a decode batch's logits are not reallocated every step
  std::function<void(const ForwardBatch&)> beforeForward;
  std::function<void(const sim::StepShape&)> stepShapeObserver;
  std::unique_ptr<Proposer> proposer;  // speculative decoding; null when off
  SpeculativeConfig proposerConfig;    // what `proposer` was built for

  int modelMaxLen() const { return model->config.maxPositionEmbeddings; }
  // The sim backend's engine runs on a virtual clock: it starts at 0 and advances only by
  // each step's predicted time (and advanceClock), never with the wall clock.
  bool virtualClock = false;
  double virtualNow = 0;
  double now() const { return virtualClock ? virtualNow : timeOf(std::chrono::steady_clock::now()); }
  // A wall-clock instant on the engine's clock; on a virtual clock, now (an instant
  // another thread stamped has no place there: it arrived at the current virtual time).
  double timeOf(std::chrono::steady_clock::time_point t) const {
    return virtualClock ? virtualNow : std::chrono::duration<double>(t - start).count();
  }
  void buildKv();
  // A switch between a real and a simulated backend keeps the clock going from where it
  // is (the charts' time axes never run backwards); a new engine's starts at 0.
  void createExecutorFor(const EngineConfig& c) {
    const bool first = executor == nullptr;
    const double t = now();
    executor = createExecutor(model, c.executor);
    device = executor->deviceInfo();
    const bool wasVirtual = virtualClock;
    virtualClock = device.backend == "sim";
    if (virtualClock && !wasVirtual) virtualNow = first ? 0 : t;
    if (!virtualClock && wasVirtual)
      start = std::chrono::steady_clock::now() -
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(t));
  }
  // `config` with 0 in max_num_batched_tokens / max_num_seqs = vLLM's default for this
  // device (includes a live change not in force yet).
  EngineConfig effective() const { return config.resolvedFor(device); }
  BatchLimits batchLimits() const {
    return {inForce.knobs.maxNumBatchedTokens, inForce.knobs.maxNumSeqs, inForce.maxModelLen};
  }
  void recordStep(const StepRecord& r) {
    ++numSteps;
    if (keepStepHistory) steps.push_back(r);
  }
  void finish(EngineRequest& er, FinishReason reason, StepOutput& out, const std::string& error = {});
  void abortAll(StepOutput& out);
  void applyPendingConfig();
  // A token's three parts: sampleToken and appendToken touch the request's own state only
  // (concurrently for the rows of a step); publishDelta is the engine's, in the plan's order.
  SampleResult sampleToken(EngineRequest& er, float* logits, int draftToken = -1,
                           const std::vector<double>* draftProbs = nullptr, bool* accepted = nullptr) const;
  AppendResult appendToken(EngineRequest& er, int tokenId) const;
  void publishDelta(EngineRequest& er, const SampleResult& s, bool accepted, const AppendResult* append, double t,
                    StepOutput& out);
  std::vector<SampledRow> sampleRows(const SchedulerOutput& plan, ForwardResult& result);
  int verifyDrafts(EngineRequest& er, const ScheduledSeq& s, const ForwardResult& result, int firstRow, double t,
                   StepOutput& out);
  void buildProposer();
  void checkSimulable(const EngineConfig& c) const;  // throws for what the sim backend cannot run
  void propose();
  void addPlanTotals(const SchedulerOutput& plan);
  void describeDivergences(const SchedulerOutput& plan) const;
  bool prefixMissAccounting = true;  // off only in bench_prefix_miss (EngineTesting)
  void failStep(const SchedulerOutput& plan, const std::string& what, StepOutput& out);
  // step() = schedule (drafts, plan) → execute → postprocess (sample or verify, append,
  // finish) → record.
  SchedulerOutput schedule(double t0, StepOutput& out);
  bool execute(const SchedulerOutput& plan, ForwardResult& result, StepOutput& out);
  int postprocess(const SchedulerOutput& plan, ForwardResult& result, StepOutput& out);
  StepRecord makeRecord(const SchedulerOutput& plan, double t0, double t1) const;
};

}  // namespace lwb
