#pragma once
// The draft_model method: a second, smaller model with the target's vocabulary runs on
// its own executor (same backend and threads) with its own paged KV pool and books
// (a KvCacheManager without prefix caching). Before each step it catches up with every
// decoding request's tokens (one varlen forward pass over all of them) and then runs
// k − 1 more one-token passes, sampling k drafts with the request's sampling settings;
// the draft distributions q go with the drafts for speculative sampling. Its KV is kept
// in step with the target: what the target rejected is rolled back by comparing the
// draft's cached tokens with the request's tokens at the next proposal.
#include <memory>
#include <string>

#include "engine/exec/executor.h"
#include "engine/spec/proposer.h"

namespace lwb {

struct Model;

// Loads the draft model from config.model and checks it against `target` (same
// vocabulary size; throws lwb::Error naming both folders otherwise). `numKvBlocks` /
// `blockSize`: the draft's pool.
std::unique_ptr<Proposer> createDraftModelProposer(const SpeculativeConfig& config, const Model& target,
                                                   const ExecutorOptions& executor, int numKvBlocks, int blockSize);

}  // namespace lwb
