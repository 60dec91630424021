#include "engine/model/gguf_llama.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "engine/common/error.h"

namespace lwb {

namespace {

struct Arch {
  const char* gguf;  // general.architecture
  const char* hf;    // ModelConfig::architecture
  bool qkvBias, qkNorm;
};
constexpr Arch kArchs[] = {{"llama", "LlamaForCausalLM", false, false},
                           {"qwen2", "Qwen2ForCausalLM", true, false},
                           {"qwen3", "Qwen3ForCausalLM", false, true}};

const Arch& archOf(const GgufFile& f) {
  const std::string arch = f.getString("general.architecture");
  for (const Arch& a : kArchs)
    if (arch == a.gguf) return a;
  throw Error(f.path() + ": general.architecture '" + arch + "' is not supported (supported: " +
              ggufSupportedArchitectures() + ")");
}

int positiveInt(const GgufFile& f, const std::string& key, uint64_t value) {
  check(value > 0 && value <= uint64_t(std::numeric_limits<int>::max()),
        f.path() + ": metadata key " + key + " = " + std::to_string(value) + ": expected a positive size");
  return int(value);
}

int requiredSize(const GgufFile& f, const std::string& key) { return positiveInt(f, key, f.getUint(key)); }

int vocabSizeOf(const GgufFile& f, const std::string& p) {
  if (f.find(p + "vocab_size")) return requiredSize(f, p + "vocab_size");
  const GgufValue* tokens = f.find("tokenizer.ggml.tokens");
  check(tokens != nullptr && tokens->type == GgufValueType::Array,
        f.path() + ": neither " + p + "vocab_size nor the array tokenizer.ggml.tokens is present");
  return positiveInt(f, "tokenizer.ggml.tokens (length)", tokens->array.size());
}

void readHeads(const GgufFile& f, const std::string& p, ModelConfig& c) {
  c.numAttentionHeads = requiredSize(f, p + "attention.head_count");
  c.numKeyValueHeads = positiveInt(f, p + "attention.head_count_kv",
                                   f.getUintOr(p + "attention.head_count_kv", uint64_t(c.numAttentionHeads)));
  const bool hasKeyLength = f.find(p + "attention.key_length") != nullptr;
  check(c.hiddenSize % c.numAttentionHeads == 0 || hasKeyLength,
        f.path() + ": " + p + "embedding_length " + std::to_string(c.hiddenSize) + " is not a multiple of " + p +
            "attention.head_count " + std::to_string(c.numAttentionHeads) + " and no key_length is given");
  c.headDim = hasKeyLength ? requiredSize(f, p + "attention.key_length") : c.hiddenSize / c.numAttentionHeads;
  const uint64_t valueLength = f.getUintOr(p + "attention.value_length", uint64_t(c.headDim));
  check(valueLength == uint64_t(c.headDim), f.path() + ": metadata key " + p + "attention.value_length = " +
                                                std::to_string(valueLength) + ": expected the key length " +
                                                std::to_string(c.headDim));
  check(c.numAttentionHeads % c.numKeyValueHeads == 0,
        f.path() + ": " + p + "attention.head_count " + std::to_string(c.numAttentionHeads) +
            " is not a multiple of head_count_kv " + std::to_string(c.numKeyValueHeads));
}

// rope_freqs.weight: Llama 3.1+'s llama3 scaling as llama.cpp's converter bakes it, one
// F32 divisor per rotary pair (finite, positive) for the inverse frequencies.
std::vector<float> readRopeFreqs(const GgufFile& f, int headDim) {
  const GgufTensor* t = f.findTensor("rope_freqs.weight");
  if (t == nullptr) return {};
  const std::string what = f.path() + ": tensor rope_freqs.weight";
  check(t->type == GgmlType::F32, what + ": expected type F32, found " + ggmlTypeName(t->type));
  check(t->numel() == headDim / 2, what + ": expected " + std::to_string(headDim / 2) + " elements (head dim " +
                                       std::to_string(headDim) + " / 2), found " + std::to_string(t->numel()));
  std::vector<float> factors(size_t(headDim / 2));
  std::memcpy(factors.data(), t->data, factors.size() * sizeof(float));
  for (size_t i = 0; i < factors.size(); ++i)
    check(std::isfinite(factors[i]) && factors[i] > 0.0f,
          what + ": element " + std::to_string(i) + " = " + std::to_string(factors[i]) + ": expected a positive number");
  return factors;
}

// RoPE: theta, full rotary dims, linear scaling (the one kind GGUF spells in metadata
// that Hugging Face's Llama also has) and Llama 3's, baked into a rope_freqs tensor.
void readRope(const GgufFile& f, const std::string& p, ModelConfig& c) {
  const uint64_t ropeDims = f.getUintOr(p + "rope.dimension_count", uint64_t(c.headDim));
  check(ropeDims == uint64_t(c.headDim), f.path() + ": metadata key " + p + "rope.dimension_count = " +
                                             std::to_string(ropeDims) + ": partial RoPE is not supported (head dim " +
                                             std::to_string(c.headDim) + ")");
  c.ropeTheta = float(f.getFloatOr(p + "rope.freq_base", 10000.0));
  c.ropeScaling.freqFactors = readRopeFreqs(f, c.headDim);
  const std::string type = f.find(p + "rope.scaling.type") ? f.getString(p + "rope.scaling.type") : "none";
  if (type == "none") return;
  check(type == "linear", f.path() + ": metadata key " + p + "rope.scaling.type = '" + type +
                              "': expected none or linear");
  c.ropeScaling.type = RopeScaling::Type::Linear;
  c.ropeScaling.factor = float(f.getFloat(p + "rope.scaling.factor"));
  check(c.ropeScaling.factor >= 1.0f, f.path() + ": metadata key " + p + "rope.scaling.factor must be >= 1");
}

}  // namespace

const char* ggufSupportedArchitectures() { return "llama, qwen2, qwen3"; }

bool ggufPermutesQk(const GgufFile& f) { return std::string(archOf(f).gguf) == "llama"; }

ModelConfig ggufModelConfig(const GgufFile& f) {
  const Arch& arch = archOf(f);
  const std::string p = std::string(arch.gguf) + ".";
  ModelConfig c;
  c.architecture = arch.hf;
  c.qkvBias = arch.qkvBias;
  c.qkNorm = arch.qkNorm;
  c.hiddenSize = requiredSize(f, p + "embedding_length");
  c.intermediateSize = requiredSize(f, p + "feed_forward_length");
  c.numHiddenLayers = requiredSize(f, p + "block_count");
  c.maxPositionEmbeddings = requiredSize(f, p + "context_length");
  readHeads(f, p, c);
  readRope(f, p, c);
  c.rmsNormEps = float(f.getFloat(p + "attention.layer_norm_rms_epsilon"));
  c.vocabSize = vocabSizeOf(f, p);
  c.tieWordEmbeddings = f.findTensor("output.weight") == nullptr;
  c.bosTokenId = int(f.getUintOr("tokenizer.ggml.bos_token_id", 1));
  c.eosTokenIds = {int(f.getUintOr("tokenizer.ggml.eos_token_id", 2))};
  // End of turn / of message (<|eot_id|>, <|im_end|>) stop generation too, as in llama.cpp.
  for (const char* key : {"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"})
    if (f.find(key)) c.eosTokenIds.push_back(int(f.getUint(key)));
  c.torchDtype = "gguf";
  return c;
}

void unpermuteHeadRows(const uint8_t* in, uint8_t* out, int numHeads, int headDim, size_t rowBytes) {
  const int half = headDim / 2;
  for (int h = 0; h < numHeads; ++h)
    for (int s = 0; s < 2; ++s)
      for (int i = 0; i < half; ++i) {
        const size_t to = size_t(h) * size_t(headDim) + size_t(s * half + i);
        const size_t from = size_t(h) * size_t(headDim) + size_t(2 * i + s);
        std::memcpy(out + to * rowBytes, in + from * rowBytes, rowBytes);
      }
}

}  // namespace lwb
