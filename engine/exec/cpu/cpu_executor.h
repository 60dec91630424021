#pragma once
// The CPU executor: batch-invariant kernels (fixed reduction order per row), weights in
// their file dtype, multithreaded over all cores.
#include <memory>

#include "engine/exec/executor.h"

namespace lwb {

std::unique_ptr<Executor> createCpuExecutor(std::shared_ptr<const Model> model, int numThreads);

}  // namespace lwb
