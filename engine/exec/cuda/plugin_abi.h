#pragma once
// The C interface between lwb_engine (cuda_loader.cpp) and the dlopen()ed CUDA plugin
// liblwb_cuda.so. No CUDA and no engine library here: both sides include it. The model
// crosses as a plain descriptor (config numbers, RoPE inverse frequencies, host
// pointers to weights in their file dtype), so the plugin never depends on the layout
// of lwb::Model and a benchmark can feed it weights without loading a model folder.
// The executor crosses as an lwb::Executor* (its vtable and the SeqSlice, ForwardBatch,
// ForwardResult and DeviceInfo layouts with it); the loader owns it through
// lwb_cuda_destroy_executor. Both sides compute lwbCudaLayoutHash() from their own
// headers and the loader refuses a plugin whose version or hash differs (a stale build),
// instead of calling into a mismatched layout.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/exec/executor.h"

// Bump whenever a struct below, a function signature or the Executor interface changes.
#define LWB_CUDA_ABI_VERSION 3

extern "C" {

// Values of lwb::DType.
enum LwbCudaDType { LWB_CUDA_F32 = 0, LWB_CUDA_F16 = 1, LWB_CUDA_BF16 = 2 };

// One weight tensor, row-major, Hugging Face shape [rows, cols] ([rows] for vectors:
// cols = 1). data == nullptr asks the plugin to fill it on the device with seeded
// uniform values in [-randomScale, randomScale] (norm weights: 1 + that), which is how
// benchmarks make big random models fast.
struct LwbCudaTensor {
  const void* data;
  int dtype;  // LwbCudaDType
  int64_t rows, cols;
};

// Qwen2's q/k/v biases ([rows] vectors) and Qwen3's per-head q/k RMSNorm weights
// ([headDim]) are read only when the model description says the family has them.
struct LwbCudaLayer {
  LwbCudaTensor inputNorm, q, k, v, o, postAttnNorm, gate, up, down;
  LwbCudaTensor qBias, kBias, vBias, qNorm, kNorm;
};

struct LwbCudaModelDesc {
  int hiddenSize, intermediateSize, numAttentionHeads, numKeyValueHeads, headDim;
  int numHiddenLayers, vocabSize, maxPositionEmbeddings;
  float rmsNormEps;
  const float* ropeInvFreq;  // [headDim / 2], rope_scaling applied (lwb::ropeInvFreq)
  LwbCudaTensor embedTokens, finalNorm, lmHead;  // lmHead.data == embedTokens.data when tied
  const LwbCudaLayer* layers;                    // [numHiddenLayers]
  uint64_t randomSeed;                           // for tensors with data == nullptr
  float randomScale;
  int hasQkvBias;  // 1: Qwen2 (q_proj/k_proj/v_proj carry a bias)
  int hasQkNorm;   // 1: Qwen3 (RMSNorm over each head of q and k, before RoPE)
};

struct LwbCudaOptions {
  int deviceIndex;
  double gpuMemoryUtilization;  // gpu_memory_utilization, in (0, 1]
  int enableCudaGraphs;         // 1: replay captured graphs for decode-only batches
};

// A single kernel run on host data, for the parity tests (tst_cuda_kernels): the plugin
// uploads the inputs (converting float to the activation dtype where the kernel takes
// it), runs the kernel and downloads the outputs as float. What `dims`, `in` and `out`
// mean per kernel is documented next to lwb_cuda_test_kernel in selftest.cu.
struct LwbCudaKernelTest {
  const char* kernel;  // "embedding" | "add_rmsnorm" | "swiglu" | "rope_cache" | "attention" | "gemm"
  int dtype;           // activation dtype: LWB_CUDA_BF16 or LWB_CUDA_F16
  int64_t dims[8];
  double scalars[4];
  const void* in[8];
  float* out[4];
};

// lwb_cuda_create_executor's status.
enum LwbCudaStatus {
  LWB_CUDA_OK = 0,
  LWB_CUDA_UNSUPPORTED = 1,  // the model's shape is one the kernels do not handle: use the CPU
  LWB_CUDA_FAILED = 2,       // bad description, out of memory, CUDA error
};

typedef int (*LwbCudaAbiVersionFn)(void);
typedef uint64_t (*LwbCudaLayoutHashFn)(void);
// Returns the number of CUDA devices (> 0), or 0 with `message` saying why none is usable
// (no driver, driver too old, no device, device index out of range).
typedef int (*LwbCudaProbeFn)(int deviceIndex, char* message, size_t messageSize);
// Returns a new executor (*status LWB_CUDA_OK), or nullptr with *status and `error` set:
// LWB_CUDA_UNSUPPORTED with the reason, or LWB_CUDA_FAILED (out of memory, bad descriptor).
typedef lwb::Executor* (*LwbCudaCreateFn)(const LwbCudaModelDesc* model, const LwbCudaOptions* options,
                                          int* status, char* error, size_t errorSize);
typedef void (*LwbCudaDestroyFn)(lwb::Executor* executor);
// Measured ceilings for benchmarks: device-to-device copy bandwidth (bytes read +
// written per second, GB/s) and a large bf16 cuBLAS GEMM (TFLOP/s). 0 on success.
typedef int (*LwbCudaPeaksFn)(int deviceIndex, double* copyGBs, double* bf16Tflops, char* error, size_t errorSize);
// 0 on success, else nonzero with `error` set.
typedef int (*LwbCudaTestKernelFn)(const LwbCudaKernelTest* test, char* error, size_t errorSize);

}  // extern "C"

// The dtype the plugin computes in (and keeps its KV cache in): f16 when every weight
// matrix is F16, else bf16. Here so that the loader checks kv_cache_dtype against it
// before the weights are uploaded (lwb::checkCudaKvCacheDtype).
inline int lwbCudaActivationDType(const LwbCudaModelDesc& d) {
  bool allF16 = d.embedTokens.dtype == LWB_CUDA_F16 && d.lmHead.dtype == LWB_CUDA_F16;
  for (int i = 0; i < d.numHiddenLayers && allF16; ++i)
    for (const LwbCudaTensor* t : {&d.layers[i].q, &d.layers[i].k, &d.layers[i].v, &d.layers[i].o,
                                   &d.layers[i].gate, &d.layers[i].up, &d.layers[i].down})
      allF16 = allF16 && t->dtype == LWB_CUDA_F16;
  return allF16 ? LWB_CUDA_F16 : LWB_CUDA_BF16;
}

// Everything that crosses the boundary, folded into one FNV-1a hash: the sizes and
// field offsets of the C structs above, the sizes of the C++ types the Executor passes
// (and of the std::string / std::vector inside them, and libstdc++'s string ABI), and
// the Executor's methods in declaration order. A vtable's layout cannot be measured,
// so its method list is spelled out here: edit it with the class.
inline uint64_t lwbCudaLayoutHash() {
  constexpr const char* kExecutorMethods =
      "~Executor;deviceInfo;kvBytesPerBlock;defaultKvBudgetBytes;allocateKvCache;numKvBlocks;kvBlockSize;forward;"
      "setBatchLimits";
  const uint64_t numbers[] = {
      sizeof(LwbCudaTensor), offsetof(LwbCudaTensor, dtype), offsetof(LwbCudaTensor, rows),
      sizeof(LwbCudaLayer), offsetof(LwbCudaLayer, qBias), offsetof(LwbCudaLayer, kNorm),
      sizeof(LwbCudaModelDesc), offsetof(LwbCudaModelDesc, rmsNormEps),
      offsetof(LwbCudaModelDesc, ropeInvFreq), offsetof(LwbCudaModelDesc, embedTokens),
      offsetof(LwbCudaModelDesc, layers), offsetof(LwbCudaModelDesc, randomSeed),
      offsetof(LwbCudaModelDesc, randomScale), offsetof(LwbCudaModelDesc, hasQkvBias),
      offsetof(LwbCudaModelDesc, hasQkNorm), sizeof(LwbCudaOptions),
      offsetof(LwbCudaOptions, gpuMemoryUtilization), offsetof(LwbCudaOptions, enableCudaGraphs),
      sizeof(LwbCudaKernelTest), offsetof(LwbCudaKernelTest, dims), offsetof(LwbCudaKernelTest, scalars),
      offsetof(LwbCudaKernelTest, in), offsetof(LwbCudaKernelTest, out),
      sizeof(lwb::SeqSlice), sizeof(lwb::ForwardBatch), sizeof(lwb::ForwardResult), sizeof(lwb::DeviceInfo),
      sizeof(lwb::BatchLimits), sizeof(lwb::Executor), sizeof(std::string), sizeof(std::vector<int32_t>),
#ifdef _GLIBCXX_USE_CXX11_ABI
      uint64_t(_GLIBCXX_USE_CXX11_ABI) + 100,
#endif
  };
  uint64_t h = 1469598103934665603ull;
  auto fnvByte = [&h](uint64_t byte) { h = (h ^ byte) * 1099511628211ull; };
  for (uint64_t n : numbers)
    for (int b = 0; b < 8; ++b) fnvByte((n >> (8 * b)) & 0xff);
  for (const char* c = kExecutorMethods; *c; ++c) fnvByte(uint64_t(uint8_t(*c)));
  return h;
}

