#pragma once
// Loads the CUDA backend plugin (liblwb_cuda.so, next to the executable's libraries)
// with dlopen, so the main program runs on machines without NVIDIA software.
#include <memory>
#include <string>

#include "engine/exec/executor.h"

namespace lwb {

// nullptr with `reason` set ("plugin not built", "no CUDA driver", "no CUDA device", a
// stale plugin, a model shape the kernels do not support ...) when the backend cannot
// be used here. Throws lwb::Error when the device exists but creating the executor
// fails (out of memory, ...).
std::unique_ptr<Executor> tryCreateCudaExecutor(std::shared_ptr<const Model> model,
                                                const ExecutorOptions& options, std::string* reason);

}  // namespace lwb
