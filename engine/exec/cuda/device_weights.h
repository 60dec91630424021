#pragma once
// The model's weights on the device, uploaded once: matrices in the activation type T
// (bf16; f16 when every matrix of the file is f16), q/k/v and gate/up concatenated by
// rows so each pair or triple is one GEMM; norm weights and Qwen2's biases in fp32
// (q/k/v biases concatenated like q/k/v). One allocation.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "engine/exec/cuda/device_buffer.h"
#include "engine/exec/cuda/plugin_abi.h"

namespace lwb::cuda {

struct ModelShape {
  int hidden = 0, inter = 0, numHeads = 0, numKvHeads = 0, headDim = 0, numLayers = 0, vocab = 0, maxPositions = 0;
  float eps = 1e-6f;
  bool qkvBias = false, qkNorm = false;  // Qwen2, Qwen3
  std::vector<float> invFreq;  // [headDim / 2]
  int qSize() const { return numHeads * headDim; }
  int kvSize() const { return numKvHeads * headDim; }
  int qkvSize() const { return qSize() + 2 * kvSize(); }
  int group() const { return numHeads / numKvHeads; }
};

// Throws lwb::Error naming the tensor and the expected/found shape.
ModelShape validateModelDesc(const LwbCudaModelDesc& desc);
// LWB_CUDA_F16 when every matrix is f16, else LWB_CUDA_BF16.
int chooseActivationDType(const LwbCudaModelDesc& desc);

template <typename T>
struct DeviceLayer {
  T* qkv = nullptr;      // [qSize + 2*kvSize, hidden]: q rows, then k, then v
  T* o = nullptr;        // [hidden, qSize]
  T* gateUp = nullptr;   // [2*inter, hidden]: gate rows, then up
  T* down = nullptr;     // [hidden, inter]
  float* inputNorm = nullptr;     // [hidden]
  float* postAttnNorm = nullptr;  // [hidden]
  float* qkvBias = nullptr;       // [qSize + 2*kvSize] (q | k | v), Qwen2 only
  float* qNorm = nullptr;         // [headDim], Qwen3 only
  float* kNorm = nullptr;         // [headDim], Qwen3 only
};

template <typename T>
struct DeviceWeights {
  DeviceBuffer storage;
  T* embed = nullptr;    // [vocab, hidden]
  T* lmHead = nullptr;   // [vocab, hidden]; == embed when tied
  float* finalNorm = nullptr;
  std::vector<DeviceLayer<T>> layers;
};

template <typename T>
void uploadWeights(const LwbCudaModelDesc& desc, const ModelShape& shape, DeviceWeights<T>& out,
                   cudaStream_t stream);

}  // namespace lwb::cuda
