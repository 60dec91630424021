#pragma once
// A naive, double-precision Llama-family forward pass (Hugging Face LlamaForCausalLM
// semantics, plus Qwen2's q/k/v biases and Qwen3's per-head q/k RMSNorm): contiguous, no KV paging, recomputes the whole sequence. Slow on purpose
// and written to be obviously correct; every executor is tested against it.
#include <vector>

namespace lwb {

struct Model;

// Logits for every position: [tokens.size() * vocabSize], row-major.
std::vector<double> referenceLogits(const Model& model, const std::vector<int>& tokens);

// Logits of the last position only: [vocabSize].
std::vector<double> referenceLastLogits(const Model& model, const std::vector<int>& tokens);

}  // namespace lwb
