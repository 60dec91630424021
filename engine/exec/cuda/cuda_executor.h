#pragma once
// The CUDA executor: the same Executor contract as the CPU one, on one device and one
// stream. Weights are uploaded once (bf16, or f16 for all-f16 models); the paged KV
// pool is device memory in the same type; GEMMs are cuBLAS with fp32 accumulation;
// decode-only batches replay CUDA graphs captured per padded batch size.
#include <memory>

#include "engine/common/error.h"
#include "engine/exec/cuda/plugin_abi.h"
#include "engine/exec/executor.h"

namespace lwb::cuda {

// Thrown for a model shape the kernels do not handle; the message says which and why.
// Not a failure: the caller falls back to the CPU backend.
class UnsupportedModel : public Error {
 public:
  using Error::Error;
};

// Throws UnsupportedModel, or lwb::Error (bad description, out of memory, CUDA failure).
std::unique_ptr<Executor> createCudaExecutor(const LwbCudaModelDesc& desc, const LwbCudaOptions& options);

}  // namespace lwb::cuda
