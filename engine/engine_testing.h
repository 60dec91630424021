#pragma once
// Test hooks into an Engine, kept out of engine.h so that front-ends including it see no
// executor or proposer type. Only tests and benchmarks include this.
#include <functional>
#include <memory>

#include "engine/engine.h"
#include "engine/exec/executor.h"

namespace lwb {

class Proposer;

struct EngineTesting {
  // Called before every forward pass; an exception it throws is handled as an executor
  // error (the step's requests finish with "error").
  static void setBeforeForwardHook(Engine& engine, std::function<void(const ForwardBatch&)> hook);
  // Drafts come from `proposer` (scripted proposals) until the next config change
  // rebuilds the proposer from speculative_config.
  static void setProposer(Engine& engine, std::unique_ptr<Proposer> proposer);
  // Prefix-miss accounting's memory of evicted blocks (KvCacheManager::setMissAccounting)
  // on or off, for the pools built from now on; rebuilds the KV pool. Call before any
  // request is added. bench_prefix_miss compares the two.
  static void setPrefixMissAccounting(Engine& engine, bool on);
};

}  // namespace lwb
