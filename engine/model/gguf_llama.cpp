#include "engine/model/gguf_llama.h"

#include <cstring>
#include <limits>
#include <string>

#include "engine/common/error.h"

namespace lwb {

namespace {

int positiveInt(const GgufFile& f, const std::string& key, uint64_t value) {
  check(value > 0 && value <= uint64_t(std::numeric_limits<int>::max()),
        f.path() + ": metadata key " + key + " = " + std::to_string(value) + ": expected a positive size");
  return int(value);
}

int requiredSize(const GgufFile& f, const std::string& key) { return positiveInt(f, key, f.getUint(key)); }

int vocabSizeOf(const GgufFile& f) {
  if (f.find("llama.vocab_size")) return requiredSize(f, "llama.vocab_size");
  const GgufValue* tokens = f.find("tokenizer.ggml.tokens");
  check(tokens != nullptr && tokens->type == GgufValueType::Array,
        f.path() + ": neither llama.vocab_size nor the array tokenizer.ggml.tokens is present");
  return positiveInt(f, "tokenizer.ggml.tokens (length)", tokens->array.size());
}

}  // namespace

ModelConfig ggufLlamaConfig(const GgufFile& f) {
  const std::string arch = f.getString("general.architecture");
  check(arch == "llama", f.path() + ": general.architecture '" + arch + "' is not supported (supported: llama)");
  ModelConfig c;
  c.architecture = "LlamaForCausalLM";
  c.hiddenSize = requiredSize(f, "llama.embedding_length");
  c.intermediateSize = requiredSize(f, "llama.feed_forward_length");
  c.numHiddenLayers = requiredSize(f, "llama.block_count");
  c.numAttentionHeads = requiredSize(f, "llama.attention.head_count");
  c.numKeyValueHeads = positiveInt(f, "llama.attention.head_count_kv",
                                   f.getUintOr("llama.attention.head_count_kv", uint64_t(c.numAttentionHeads)));
  c.maxPositionEmbeddings = requiredSize(f, "llama.context_length");
  check(c.hiddenSize % c.numAttentionHeads == 0 || f.find("llama.attention.key_length"),
        f.path() + ": llama.embedding_length " + std::to_string(c.hiddenSize) + " is not a multiple of " +
            "llama.attention.head_count " + std::to_string(c.numAttentionHeads) + " and no key_length is given");
  c.headDim = f.find("llama.attention.key_length") ? requiredSize(f, "llama.attention.key_length")
                                                    : c.hiddenSize / c.numAttentionHeads;
  check(c.numAttentionHeads % c.numKeyValueHeads == 0,
        f.path() + ": llama.attention.head_count " + std::to_string(c.numAttentionHeads) +
            " is not a multiple of head_count_kv " + std::to_string(c.numKeyValueHeads));
  const uint64_t ropeDims = f.getUintOr("llama.rope.dimension_count", uint64_t(c.headDim));
  check(ropeDims == uint64_t(c.headDim), f.path() + ": metadata key llama.rope.dimension_count = " +
                                             std::to_string(ropeDims) + ": partial RoPE is not supported (head dim " +
                                             std::to_string(c.headDim) + ")");
  c.rmsNormEps = float(f.getFloat("llama.attention.layer_norm_rms_epsilon"));
  c.ropeTheta = float(f.getFloatOr("llama.rope.freq_base", 10000.0));
  c.vocabSize = vocabSizeOf(f);
  c.tieWordEmbeddings = f.findTensor("output.weight") == nullptr;
  c.bosTokenId = int(f.getUintOr("tokenizer.ggml.bos_token_id", 1));
  c.eosTokenIds = {int(f.getUintOr("tokenizer.ggml.eos_token_id", 2))};
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
