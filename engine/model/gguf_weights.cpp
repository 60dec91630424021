// WeightStore::fromGguf (declared in safetensors.h): a GGUF file's tensors under the
// Hugging Face names LlamaWeights binds, in row-major shapes. ggml's F32/F16/BF16 are
// the plain dtypes; quantized tensors keep their blocks (TensorView::blockType).
#include <regex>

#include "engine/common/error.h"
#include "engine/model/gguf.h"
#include "engine/model/gguf_llama.h"
#include "engine/model/model_config.h"
#include "engine/model/safetensors.h"

namespace lwb {

namespace {

// llama.cpp's tensor names → Hugging Face's; "" for names no Llama-family model uses.
std::string hfName(const std::string& gguf) {
  static const std::pair<const char*, const char*> kTop[] = {
      {"token_embd.weight", "model.embed_tokens.weight"},
      {"output_norm.weight", "model.norm.weight"},
      {"output.weight", "lm_head.weight"},
  };
  static const std::pair<const char*, const char*> kLayer[] = {
      {"attn_norm.weight", "input_layernorm.weight"},    {"attn_q.weight", "self_attn.q_proj.weight"},
      {"attn_k.weight", "self_attn.k_proj.weight"},      {"attn_v.weight", "self_attn.v_proj.weight"},
      {"attn_q.bias", "self_attn.q_proj.bias"},          {"attn_k.bias", "self_attn.k_proj.bias"},
      {"attn_v.bias", "self_attn.v_proj.bias"},          {"attn_output.weight", "self_attn.o_proj.weight"},
      {"attn_q_norm.weight", "self_attn.q_norm.weight"}, {"attn_k_norm.weight", "self_attn.k_norm.weight"},
      {"ffn_norm.weight", "post_attention_layernorm.weight"}, {"ffn_gate.weight", "mlp.gate_proj.weight"},
      {"ffn_up.weight", "mlp.up_proj.weight"},           {"ffn_down.weight", "mlp.down_proj.weight"},
  };
  for (const auto& [from, to] : kTop)
    if (gguf == from) return to;
  static const std::regex layer(R"(blk\.(\d+)\.(.+))");
  std::smatch m;
  if (!std::regex_match(gguf, m, layer)) return "";
  for (const auto& [from, to] : kLayer)
    if (m[2] == from) return "model.layers." + m[1].str() + "." + to;
  return "";
}

TensorView viewOf(const GgufTensor& t, const std::string& file) {
  TensorView v;
  v.name = t.name;
  v.shape = t.shape;
  v.data = t.data;
  v.file = file;
  switch (t.type) {
    case GgmlType::F32: v.dtype = DType::F32; break;
    case GgmlType::F16: v.dtype = DType::F16; break;
    case GgmlType::BF16: v.dtype = DType::BF16; break;
    default: v.blockType = t.type; break;
  }
  return v;
}

// Heads of q or k whose rows the converter permuted: numHeads of headDim rows each.
int permutedHeads(const std::string& ggufName, const ModelConfig& c) {
  const auto endsWith = [&](const char* s) { return ggufName.ends_with(s); };
  if (endsWith(".attn_q.weight") || endsWith(".attn_q.bias")) return c.numAttentionHeads;
  if (endsWith(".attn_k.weight") || endsWith(".attn_k.bias")) return c.numKeyValueHeads;
  return 0;
}

}  // namespace

std::unique_ptr<WeightStore> WeightStore::fromGguf(std::unique_ptr<GgufFile> file, const ModelConfig& config,
                                                   bool unpermuteQk) {
  auto store = std::make_unique<WeightStore>();
  store->dir_ = file->path();
  for (const GgufTensor& t : file->tensors()) {
    const std::string name = hfName(t.name);
    if (name.empty()) continue;  // e.g. rope_freqs (read into the config), unknown extras
    TensorView v = viewOf(t, file->path());
    if (const int heads = unpermuteQk ? permutedHeads(t.name, config) : 0; heads > 0) {
      check(t.numRows() == int64_t(heads) * config.headDim,
            file->path() + ": tensor " + t.name + ": expected " + std::to_string(heads * config.headDim) + " rows (" +
                std::to_string(heads) + " heads of " + std::to_string(config.headDim) + "), found " +
                std::to_string(t.numRows()));
      std::vector<uint8_t>& copy = store->owned_.emplace_back(t.numBytes);
      unpermuteHeadRows(t.data, copy.data(), heads, config.headDim, t.numBytes / size_t(t.numRows()));
      v.data = copy.data();
    }
    store->tensors_.emplace(name, std::move(v));
  }
  store->gguf_ = std::move(file);
  return store;
}

}  // namespace lwb
