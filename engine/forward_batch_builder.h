#pragma once
// The engine root's bridge between the scheduler and the executor: the scheduler's plan
// of one step becomes the executor's ForwardBatch here, so neither includes the other.
#include "engine/exec/executor.h"
#include "engine/sched/scheduler_output.h"

namespace lwb {

class KvCacheManager;

// Flattened rows in plan.seqs order (each request's new tokens, then its drafts); block
// tables from `kv`.
ForwardBatch buildForwardBatch(const SchedulerOutput& plan, const KvCacheManager& kv);

}  // namespace lwb
