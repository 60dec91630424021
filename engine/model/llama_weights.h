#pragma once
// The tensors of a Llama-family model (Llama, Mistral, Qwen2, Qwen3), bound by Hugging
// Face name and checked against the config's shapes. Views point into the WeightStore's mappings (file dtype kept).
#include <vector>

#include "engine/model/model_config.h"
#include "engine/model/safetensors.h"

namespace lwb {

struct LlamaLayerWeights {
  const TensorView* inputNorm = nullptr;      // [hidden]
  const TensorView* q = nullptr;              // [numHeads*headDim, hidden]
  const TensorView* k = nullptr;              // [numKvHeads*headDim, hidden]
  const TensorView* v = nullptr;              // [numKvHeads*headDim, hidden]
  const TensorView* o = nullptr;              // [hidden, numHeads*headDim]
  const TensorView* qBias = nullptr;          // [numHeads*headDim]    Qwen2 only, else null
  const TensorView* kBias = nullptr;          // [numKvHeads*headDim]  Qwen2 only
  const TensorView* vBias = nullptr;          // [numKvHeads*headDim]  Qwen2 only
  const TensorView* qNorm = nullptr;          // [headDim]             Qwen3 only, else null
  const TensorView* kNorm = nullptr;          // [headDim]             Qwen3 only
  const TensorView* postAttnNorm = nullptr;   // [hidden]
  const TensorView* gate = nullptr;           // [intermediate, hidden]
  const TensorView* up = nullptr;             // [intermediate, hidden]
  const TensorView* down = nullptr;           // [hidden, intermediate]
};

struct LlamaWeights {
  const TensorView* embedTokens = nullptr;    // [vocab, hidden]
  std::vector<LlamaLayerWeights> layers;      // [numHiddenLayers]
  const TensorView* finalNorm = nullptr;      // [hidden]
  const TensorView* lmHead = nullptr;         // [vocab, hidden]; == embedTokens when tied

  // Throws lwb::Error naming the file, tensor, expected and found shape.
  static LlamaWeights bind(const WeightStore& store, const ModelConfig& config);
};

}  // namespace lwb
