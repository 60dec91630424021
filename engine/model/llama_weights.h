#pragma once
// The tensors of a Llama-family model, bound by Hugging Face name and checked against
// the config's shapes. Views point into the WeightStore's mappings (file dtype kept).
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
