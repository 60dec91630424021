#pragma once
// The vLLM V1 scheduler: one token budget per step, RUNNING requests first (a decode
// token or the next prompt chunk each), then WAITING ones while the budget and
// max_num_seqs allow, each only if blocks for its whole current sequence are free
// (scheduler_reserve_full_isl). Preempts (recompute) when a running request cannot get
// a block.
// Decides only; the KvCacheManager keeps the books and the Engine runs the batch.
// Blocks enter the prefix cache when allocated for the tokens that fill them (vLLM V1),
// so an admission can hit blocks an earlier seq of the same step is about to write:
// seqs are in allocation order, so every writer precedes the requests hitting its
// blocks, and the executors write all rows' K/V of a layer before attention reads it.
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/config/engine_config.h"
#include "engine/kv/kv_cache_manager.h"
#include "engine/sched/scheduler_output.h"

namespace lwb {

// The knobs a step runs with. The engine owns the one instance and changes it at step
// boundaries; the scheduler holds a reference and reads it on every call, so a live
// change needs no copy refreshed and a failed change leaves nothing stale behind.
struct ConfigInForce {
  EngineConfig knobs;   // resolved for the device: no 0 (= vLLM's default) left in the budgets
  int maxModelLen = 0;  // effective (the knob's, or the model's max_position_embeddings)
};

class Scheduler {
 public:
  // `config` is the engine's, read (never copied) on every call: a live knob change
  // (budget, max_num_seqs, chunking, caching, threshold, policy, max_model_len) applies
  // at the next schedule(). It must outlive the scheduler.
  Scheduler(const ConfigInForce& config, std::unique_ptr<KvCacheManager> kv);
  const ConfigInForce& config() const { return config_; }

  // Queues `r` (not owned; it must outlive its stay here). Returns "" or, when the
  // request can never run under the current knobs, the reason (then it is not queued).
  std::string addRequest(Request* r);
  SchedulerOutput schedule(double now);
  // After the forward pass: numComputedTokens advance; the blocks registered in the
  // prefix cache at allocation (schedule()) count as written from now on.
  // Speculative seqs advance past their last real token only: their drafts wait for
  // acceptDrafts().
  void commitStep(const SchedulerOutput& out);
  // After verification appended the accepted drafts and one more token to r->tokenIds:
  // the accepted drafts' KV counts as computed (full blocks of them get hashes) and the
  // rejected drafts' lookahead blocks go back (rollback).
  void acceptDrafts(Request* r, int numAccepted);
  // The forward pass failed: the hashes schedule() registered for blocks it would have
  // written are dropped (call before finishing the step's requests).
  void abortStep();
  // Takes `r` out of the running or waiting queue and frees its blocks.
  void finishRequest(Request* r, RequestState state);

  const std::vector<Request*>& running() const { return running_; }
  const std::deque<Request*>& waiting() const { return waiting_; }
  int numRunning() const { return int(running_.size()); }
  int numWaiting() const { return int(waiting_.size()); }
  bool hasRequests() const { return !running_.empty() || !waiting_.empty(); }
  const KvCacheManager& kv() const { return *kv_; }
  // The books themselves, for the KV connector of P/D disaggregation (the engine root's
  // pd_engine), which holds received blocks between steps; never during a step.
  KvCacheManager& kvForTransfer() { return *kv_; }

 private:
  std::string neverSchedulableReason(const Request& r) const;
  void recordPrefixLookup(const Request& r, int numHitTokens, SchedulerOutput& out);
  void recordPrefixMiss(Request& r, PrefixMiss miss, SchedulerOutput& out);
  void scheduleRunning(SchedulerOutput& out, double now);
  void scheduleWaiting(SchedulerOutput& out, double now);
  int capChunk(int numNewTokens, int budget) const;
  Request* pickVictim() const;
  void preempt(Request* victim, SchedulerOutput& out, double now);
  std::deque<Request*>::iterator nextWaiting();
  const EngineConfig& knobs() const { return config_.knobs; }
  // With prefix caching on, the tokens whose full blocks are hashed; else none.
  const std::vector<int>* hashable(const Request& r) const;

  const ConfigInForce& config_;
  std::unique_ptr<KvCacheManager> kv_;
  std::vector<Request*> running_;  // admission order
  std::deque<Request*> waiting_;   // arrival order; preempted ones at the front
  int64_t nextArrivalSeq_ = 0;
  int budgetLeft_ = 0;
};

}  // namespace lwb
