#pragma once
// The CPU executor: batch-invariant kernels (fixed reduction order per row), weights in
// their file dtype (or quantized at load to Q8_0 / Q4_K: gemm_quant.h), multithreaded
// over all cores.
#include <memory>

#include "engine/exec/executor.h"

namespace lwb {

// `quantization` Q8_0 or Q4_K quantizes every Linear weight at load (Q4_K falls back to
// Q8_0 for rows that are not a multiple of 256); F32 keeps the file's dtype.
// `kvCacheType` F32 or BF16: the KV cache's element type (kv_cache_dtype).
std::unique_ptr<Executor> createCpuExecutor(std::shared_ptr<const Model> model, int numThreads,
                                            GgmlType quantization = GgmlType::F32, DType kvCacheType = DType::F32);

}  // namespace lwb
