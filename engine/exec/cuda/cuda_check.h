#pragma once
// Every CUDA and cuBLAS call goes through these macros: a failure throws lwb::Error
// with the call's text, file:line and the status name, e.g.
// "cudaMalloc(&p, n) failed at engine/exec/cuda/device_buffer.cu:12: cudaErrorMemoryAllocation (out of memory)".
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "engine/common/error.h"

namespace lwb::cuda {

[[noreturn]] inline void throwCudaError(cudaError_t e, const char* call, const char* file, int line) {
  throw Error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + cudaGetErrorName(e) +
              " (" + cudaGetErrorString(e) + ")");
}

[[noreturn]] inline void throwCublasError(cublasStatus_t s, const char* call, const char* file, int line) {
  throw Error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + cublasGetStatusName(s) +
              " (" + cublasGetStatusString(s) + ")");
}

}  // namespace lwb::cuda

#define LWB_CUDA_CHECK(call)                                                              \
  do {                                                                                    \
    const cudaError_t lwbStatus_ = (call);                                                \
    if (lwbStatus_ != cudaSuccess) ::lwb::cuda::throwCudaError(lwbStatus_, #call, __FILE__, __LINE__); \
  } while (0)

#define LWB_CUBLAS_CHECK(call)                                                            \
  do {                                                                                    \
    const cublasStatus_t lwbStatus_ = (call);                                             \
    if (lwbStatus_ != CUBLAS_STATUS_SUCCESS)                                              \
      ::lwb::cuda::throwCublasError(lwbStatus_, #call, __FILE__, __LINE__);               \
  } while (0)

// After a kernel launch: reports bad launch configurations at once (no sync).
#define LWB_CUDA_CHECK_LAUNCH(what) LWB_CUDA_CHECK(cudaGetLastError())
