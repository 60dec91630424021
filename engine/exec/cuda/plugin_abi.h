#pragma once
// The C interface between lwb_engine (cuda_loader.cpp) and the dlopen()ed CUDA plugin
// liblwb_cuda.so. No CUDA and no engine library here: both sides include it. The model
// crosses as a plain descriptor (config numbers, RoPE inverse frequencies, host
// pointers to weights in their file dtype), so the plugin never depends on the layout
// of lwb::Model and a benchmark can feed it weights without loading a model folder.
// The executor crosses as an lwb::Executor* (same compiler and libstdc++ on both sides,
// checked by the ABI version); the loader owns it through lwb_cuda_destroy_executor.
#include <cstddef>
#include <cstdint>

namespace lwb {
class Executor;
}

// Bump whenever a struct below or a function signature changes.
#define LWB_CUDA_ABI_VERSION 1

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

struct LwbCudaLayer {
  LwbCudaTensor inputNorm, q, k, v, o, postAttnNorm, gate, up, down;
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
  const char* kernel;  // "add_rmsnorm" | "swiglu" | "rope_cache" | "attention" | "gemm"
  int dtype;           // activation dtype: LWB_CUDA_BF16 or LWB_CUDA_F16
  int64_t dims[8];
  double scalars[4];
  const void* in[8];
  float* out[4];
};

typedef int (*LwbCudaAbiVersionFn)(void);
// Returns the number of CUDA devices (> 0), or 0 with `message` saying why none is usable
// (no driver, driver too old, no device, device index out of range).
typedef int (*LwbCudaProbeFn)(int deviceIndex, char* message, size_t messageSize);
// Returns a new executor, or nullptr with `error` set (out of memory, bad descriptor).
typedef lwb::Executor* (*LwbCudaCreateFn)(const LwbCudaModelDesc* model, const LwbCudaOptions* options,
                                          char* error, size_t errorSize);
typedef void (*LwbCudaDestroyFn)(lwb::Executor* executor);
// Measured ceilings for benchmarks: device-to-device copy bandwidth (bytes read +
// written per second, GB/s) and a large bf16 cuBLAS GEMM (TFLOP/s). 0 on success.
typedef int (*LwbCudaPeaksFn)(int deviceIndex, double* copyGBs, double* bf16Tflops, char* error, size_t errorSize);
// 0 on success, else nonzero with `error` set.
typedef int (*LwbCudaTestKernelFn)(const LwbCudaKernelTest* test, char* error, size_t errorSize);

}  // extern "C"
