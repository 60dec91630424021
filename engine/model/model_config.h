#pragma once
// config.json of a Hugging Face Llama-family model: LlamaForCausalLM (Llama 2/3.x,
// SmolLM2), MistralForCausalLM, Qwen2ForCausalLM (Qwen 2/2.5: q/k/v biases) and
// Qwen3ForCausalLM (per-head RMSNorm on q and k, explicit head_dim).
#include <string>
#include <vector>

namespace lwb {

struct RopeScaling {
  enum class Type { None, Linear, Llama3 };
  Type type = Type::None;
  float factor = 1.0f;
  // llama3 only
  float lowFreqFactor = 1.0f;
  float highFreqFactor = 4.0f;
  int originalMaxPositionEmbeddings = 8192;
  // Per-pair divisors of the inverse frequencies, [headDim / 2], applied after the
  // type's scaling: GGUF's rope_freqs tensor, in which llama.cpp's converter bakes
  // Llama 3.1+'s llama3 scaling (the file keeps no rope_scaling parameters).
  std::vector<float> freqFactors;
};

struct ModelConfig {
  std::string architecture;  // one of supportedArchitectures()
  int hiddenSize = 0;
  int intermediateSize = 0;
  int numAttentionHeads = 0;
  int numKeyValueHeads = 0;  // == numAttentionHeads when absent from config.json
  int headDim = 0;           // hiddenSize / numAttentionHeads when absent
  int numHiddenLayers = 0;
  int vocabSize = 0;
  int maxPositionEmbeddings = 0;
  float rmsNormEps = 1e-6f;
  float ropeTheta = 10000.0f;
  RopeScaling ropeScaling;
  bool tieWordEmbeddings = false;
  int bosTokenId = 1;
  std::vector<int> eosTokenIds;  // config.json may give one id or a list
  std::string torchDtype;        // informational ("bfloat16", ...)
  // What the block adds to Llama's; derived from the architecture.
  bool qkvBias = false;  // Qwen2: q_proj/k_proj/v_proj carry a bias (o_proj does not)
  bool qkNorm = false;   // Qwen3: RMSNorm over each head of q and k (weights [headDim]) before RoPE

  int qSize() const { return numAttentionHeads * headDim; }
  int kvSize() const { return numKeyValueHeads * headDim; }
  // Parameters counted from the shapes (embeddings once when tied).
  long long numParameters() const;
};

// Parses config.json text; `fileName` is only used in error messages.
// Throws lwb::Error naming the field and the value on a missing required key or an
// unsupported value (architecture, hidden_act, rope_scaling type, non-positive sizes,
// heads not dividing evenly). Unknown keys are ignored.
// "LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM": for messages.
const char* supportedArchitectures();

ModelConfig parseModelConfig(const std::string& jsonText, const std::string& fileName);
ModelConfig loadModelConfig(const std::string& path);

// RoPE inverse frequencies [headDim/2], rope_scaling applied (linear, llama3), as
// Hugging Face computes them. Shared by every executor so they agree exactly.
std::vector<float> ropeInvFreq(const ModelConfig& config);

}  // namespace lwb
