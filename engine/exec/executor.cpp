#include "engine/exec/executor.h"

#include "engine/common/error.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cuda_loader.h"

namespace lwb {

int ForwardBatch::numLogitRows() const {
  int n = 0;
  for (const SeqSlice& s : seqs) n += s.needLogits ? 1 : 0;
  return n;
}

std::unique_ptr<Executor> createExecutor(std::shared_ptr<const Model> model, const ExecutorOptions& options,
                                         std::string* notice) {
  const std::string& backend = options.backend;
  check(backend == "auto" || backend == "cpu" || backend == "cuda",
        "backend: expected auto, cpu or cuda, found '" + backend + "'");
  if (backend != "cpu") {
    std::string reason;
    if (auto cuda = tryCreateCudaExecutor(model, options, &reason)) return cuda;
    check(backend != "cuda", "--backend cuda: the CUDA backend is not usable here: " + reason);
    if (notice) *notice = "using the CPU backend: " + reason;
  }
  return createCpuExecutor(std::move(model), options.numThreads);
}

}  // namespace lwb
