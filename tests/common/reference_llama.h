#pragma once
// The reference forward (engine/exec/testing/reference_forward.h: naive, float64, Hugging
// Face LlamaForCausalLM semantics plus Qwen2's q/k/v biases and Qwen3's per-head q/k
// RMSNorm) on a loaded Model's weights, quantized ones dequantized exactly. Every
// executor is tested against it; the CUDA device check runs the same code on its own
// random weights (exec/cuda/testing/host_llama.h).
#include <vector>

namespace lwb {

struct Model;

// Logits for every position: [tokens.size() * vocabSize], row-major.
std::vector<double> referenceLogits(const Model& model, const std::vector<int>& tokens);

// Logits of the last position only: [vocabSize].
std::vector<double> referenceLastLogits(const Model& model, const std::vector<int>& tokens);

}  // namespace lwb
