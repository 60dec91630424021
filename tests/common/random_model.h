#pragma once
// Random Llama-family models (Llama, Mistral, Qwen2 with q/k/v biases, Qwen3 with q/k
// norms) for tests and benchmarks: a model folder in Hugging Face layout (config.json, model.safetensors, tokenizer.model, tokenizer_config.json) with
// seeded random weights, so every helper can test against a real folder without the
// default model. The tokenizer is a tiny SentencePiece model trained in-process (same
// conventions as the default model: <unk>=0 <s>=1 </s>=2, byte fallback, digits split,
// user-defined <|system|> <|user|> <|assistant|>), so no file outside the test is needed.
#include <cstdint>
#include <string>

#include "engine/common/dtype.h"
#include "engine/model/model_config.h"

namespace lwb {

struct RandomModelSpec {
  std::string architecture = "LlamaForCausalLM";  // or Mistral-, Qwen2-, Qwen3ForCausalLM
  int hiddenSize = 64;
  int intermediateSize = 128;
  int numAttentionHeads = 4;
  int numKeyValueHeads = 2;
  int headDim = 0;  // 0: hiddenSize / numAttentionHeads, and head_dim is not written
  int numHiddenLayers = 2;
  int vocabSize = 512;  // may exceed the tokenizer's pieces (tinyTokenizerVocabSize())
  int maxPositionEmbeddings = 512;
  float rmsNormEps = 1e-5f;
  float ropeTheta = 10000.0f;
  RopeScaling ropeScaling;  // written as rope_scaling when not None
  bool tieWordEmbeddings = false;
  int bosTokenId = 1;
  int eosTokenId = 2;

  // Element type per tensor class.
  DType embeddingDType = DType::F32;  // model.embed_tokens.weight
  DType attentionDType = DType::F32;  // q/k/v/o_proj
  DType mlpDType = DType::F32;        // gate/up/down_proj
  DType normDType = DType::F32;       // input/post_attention layernorm, model.norm
  DType lmHeadDType = DType::F32;     // lm_head.weight (absent when tied)

  uint64_t seed = 1234;
  // Matrices are uniform in [-scale, scale]; norm weights are 1 + uniform in [-scale, scale].
  float scale = 0.1f;
  // Qwen2's q/k/v biases are uniform in [-biasScale, biasScale] (real ones are large).
  float biasScale = 0.5f;

  // tokenizer_config.json: written when true, with this chat_template ("" writes none).
  bool writeTokenizerConfig = true;
  std::string chatTemplate = zephyrChatTemplate();

  static std::string zephyrChatTemplate();  // the default model's template
};

// Writes the model folder `dir` (created if needed; existing files overwritten) and
// returns its absolute path.
std::string writeRandomLlamaModel(const std::string& dir, const RandomModelSpec& spec = {});

// The spec as a ModelConfig (what parseModelConfig should read back from config.json).
ModelConfig randomModelConfig(const RandomModelSpec& spec);

// The tiny tokenizer: serialized SentencePiece ModelProto, trained once per process
// (deterministic), and a copy written to `path`.
const std::string& tinyTokenizerProto();
void writeTinyTokenizer(const std::string& path);
int tinyTokenizerVocabSize();

}  // namespace lwb
