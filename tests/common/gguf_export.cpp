#include "common/gguf_export.h"

#include <sentencepiece_processor.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/gguf_llama.h"
#include "engine/model/model.h"
#include "engine/model/quant.h"
#include "engine/model/sentencepiece_pieces.h"

namespace lwb::test {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Metadata = std::vector<std::pair<std::string, GgufValue>>;

GgufValue strings(const std::vector<std::string>& v) {
  std::vector<GgufValue> out;
  for (const std::string& s : v) out.push_back(ggufString(s));
  return ggufArray(GgufValueType::String, std::move(out));
}
GgufValue int32s(const std::vector<int>& v) {
  std::vector<GgufValue> out;
  for (int i : v) out.push_back(ggufInt32(i));
  return ggufArray(GgufValueType::Int32, std::move(out));
}
GgufValue float32s(const std::vector<float>& v) {
  std::vector<GgufValue> out;
  for (float f : v) out.push_back(ggufFloat32(f));
  return ggufArray(GgufValueType::Float32, std::move(out));
}

// tokenizer.model → model "llama": pieces, scores and types as the converter reads them.
void addSentencePiece(const Model& model, Metadata& m) {
  sentencepiece::SentencePieceProcessor sp;
  check(sp.Load(model.tokenizerPath).ok(), model.tokenizerPath + ": cannot load");
  const std::vector<PieceType> types = parsePieceTypes(sp.serialized_model_proto());
  std::vector<std::string> tokens;
  std::vector<float> scores;
  std::vector<int> typeIds;
  for (int id = 0; id < sp.GetPieceSize(); ++id) {
    tokens.push_back(sp.IdToPiece(id));
    scores.push_back(sp.GetScore(id));
    typeIds.push_back(int(types[size_t(id)]));
  }
  m.push_back({"tokenizer.ggml.model", ggufString("llama")});
  m.push_back({"tokenizer.ggml.tokens", strings(tokens)});
  m.push_back({"tokenizer.ggml.scores", float32s(scores)});
  m.push_back({"tokenizer.ggml.token_type", int32s(typeIds)});
  m.push_back({"tokenizer.ggml.unknown_token_id", ggufUint32(uint32_t(sp.unk_id()))});
  m.push_back({"tokenizer.ggml.add_bos_token", ggufBool(model.tokenizerSettings.addBosToken)});
  m.push_back({"tokenizer.ggml.add_eos_token", ggufBool(model.tokenizerSettings.addEosToken)});
}

std::string archOf(const std::string& hf) {
  if (hf == "Qwen2ForCausalLM") return "qwen2";
  if (hf == "Qwen3ForCausalLM") return "qwen3";
  return "llama";
}

Metadata hyperParameters(const ModelConfig& c, const std::string& arch) {
  const std::string p = arch + ".";
  Metadata m = {{"general.architecture", ggufString(arch)},
                {"general.name", ggufString("test export")},
                {p + "context_length", ggufUint32(uint32_t(c.maxPositionEmbeddings))},
                {p + "embedding_length", ggufUint32(uint32_t(c.hiddenSize))},
                {p + "feed_forward_length", ggufUint32(uint32_t(c.intermediateSize))},
                {p + "block_count", ggufUint32(uint32_t(c.numHiddenLayers))},
                {p + "attention.head_count", ggufUint32(uint32_t(c.numAttentionHeads))},
                {p + "attention.head_count_kv", ggufUint32(uint32_t(c.numKeyValueHeads))},
                {p + "attention.layer_norm_rms_epsilon", ggufFloat32(c.rmsNormEps)},
                {p + "rope.freq_base", ggufFloat32(c.ropeTheta)},
                {p + "rope.dimension_count", ggufUint32(uint32_t(c.headDim))},
                {p + "vocab_size", ggufUint32(uint32_t(c.vocabSize))}};
  if (c.headDim * c.numAttentionHeads != c.hiddenSize) {
    m.push_back({p + "attention.key_length", ggufUint32(uint32_t(c.headDim))});
    m.push_back({p + "attention.value_length", ggufUint32(uint32_t(c.headDim))});
  }
  if (c.ropeScaling.type == RopeScaling::Type::Linear) {
    m.push_back({p + "rope.scaling.type", ggufString("linear")});
    m.push_back({p + "rope.scaling.factor", ggufFloat32(c.ropeScaling.factor)});
  }
  return m;
}

// Hugging Face name → llama.cpp's.
std::string ggufName(const std::string& hf) {
  static const std::pair<const char*, const char*> kMap[] = {
      {"input_layernorm.weight", "attn_norm.weight"},     {"self_attn.q_proj.weight", "attn_q.weight"},
      {"self_attn.k_proj.weight", "attn_k.weight"},       {"self_attn.v_proj.weight", "attn_v.weight"},
      {"self_attn.q_proj.bias", "attn_q.bias"},           {"self_attn.k_proj.bias", "attn_k.bias"},
      {"self_attn.v_proj.bias", "attn_v.bias"},           {"self_attn.o_proj.weight", "attn_output.weight"},
      {"self_attn.q_norm.weight", "attn_q_norm.weight"},  {"self_attn.k_norm.weight", "attn_k_norm.weight"},
      {"post_attention_layernorm.weight", "ffn_norm.weight"}, {"mlp.gate_proj.weight", "ffn_gate.weight"},
      {"mlp.up_proj.weight", "ffn_up.weight"},            {"mlp.down_proj.weight", "ffn_down.weight"}};
  if (hf == "model.embed_tokens.weight") return "token_embd.weight";
  if (hf == "model.norm.weight") return "output_norm.weight";
  if (hf == "lm_head.weight") return "output.weight";
  static const std::regex layer(R"(model\.layers\.(\d+)\.(.+))");
  std::smatch mt;
  check(std::regex_match(hf, mt, layer), "gguf export: unexpected tensor " + hf);
  for (const auto& [from, to] : kMap)
    if (mt[2] == from) return "blk." + mt[1].str() + "." + to;
  throw Error("gguf export: unexpected tensor " + hf);
}

std::vector<float> toFloats(const TensorView& t) {
  std::vector<float> out(size_t(t.numel()));
  const uint16_t* h = static_cast<const uint16_t*>(t.data);
  for (size_t i = 0; i < out.size(); ++i) {
    if (t.dtype == DType::F32) std::memcpy(&out[i], static_cast<const float*>(t.data) + i, 4);
    else out[i] = t.dtype == DType::BF16 ? bf16ToFloat(h[i]) : halfToFloat(h[i]);
  }
  return out;
}

// The converter's permutation: HF row (h, s, i) → GGUF row (h, i, s), for numHeads heads.
std::vector<float> permuted(const std::vector<float>& w, int numHeads, int headDim, size_t rowLength) {
  std::vector<float> out(w.size());
  const int half = headDim / 2;
  for (int h = 0; h < numHeads; ++h)
    for (int s = 0; s < 2; ++s)
      for (int i = 0; i < half; ++i) {
        const size_t from = size_t(h * headDim + s * half + i), to = size_t(h * headDim + 2 * i + s);
        std::memcpy(&out[to * rowLength], &w[from * rowLength], rowLength * 4);
      }
  return out;
}

GgufTensorData exported(const TensorView& t, const ModelConfig& c, bool permute, const GgufTypeChooser& typeFor) {
  std::vector<float> w = toFloats(t);
  const int rowLength = int(t.shape.back());
  const size_t numRows = w.size() / size_t(rowLength);
  if (permute && (t.name.ends_with("q_proj.weight") || t.name.ends_with("k_proj.weight")))
    w = permuted(w, int(numRows) / c.headDim, c.headDim, size_t(rowLength));
  GgmlType type = t.shape.size() == 2 && typeFor ? typeFor(t.name, rowLength) : GgmlType::F32;
  if (type == GgmlType::F32)
    type = t.dtype == DType::F32 ? GgmlType::F32 : t.dtype == DType::F16 ? GgmlType::F16 : GgmlType::BF16;
  GgufTensorData d{ggufName(t.name), type, {}, {}};
  for (auto it = t.shape.rbegin(); it != t.shape.rend(); ++it) d.dims.push_back(*it);
  for (size_t r = 0; r < numRows; ++r) {
    const std::vector<uint8_t> row = quantizeRowForTest(type, w.data() + r * size_t(rowLength), rowLength);
    d.bytes.insert(d.bytes.end(), row.begin(), row.end());
  }
  return d;
}

}  // namespace

GgmlType q4kmLikeType(const std::string& name, int rowLength) {
  const bool six = name == "lm_head.weight" || name.ends_with("v_proj.weight") || name.ends_with("down_proj.weight");
  if (rowLength % kQkK == 0) return six ? GgmlType::Q6_K : GgmlType::Q4_K;
  return six ? GgmlType::Q8_0 : GgmlType::Q5_0;
}

Metadata ggufTokenizerMetadataFromJson(const std::string& path, const std::string& pre) {
  const json j = lwb::readJsonFile(path);
  std::vector<std::string> tokens;
  std::vector<int> types;
  for (const auto& [piece, id] : j["model"]["vocab"].items()) {
    if (size_t(id.get<int>()) >= tokens.size()) tokens.resize(size_t(id.get<int>()) + 1), types.resize(tokens.size(), 1);
    tokens[size_t(id.get<int>())] = piece;
  }
  for (const json& t : j["added_tokens"]) {
    const size_t id = t["id"].get<size_t>();
    if (id >= tokens.size()) tokens.resize(id + 1), types.resize(tokens.size(), 1);
    tokens[id] = t["content"].get<std::string>();
    types[id] = t["special"].get<bool>() ? 3 : 4;
  }
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i].empty()) tokens[i] = "[PAD" + std::to_string(i) + "]", types[i] = 5;  // the converter's filler
  std::vector<std::string> merges;
  for (const json& mg : j["model"]["merges"])
    merges.push_back(mg.is_string() ? mg.get<std::string>() : mg[0].get<std::string>() + " " + mg[1].get<std::string>());
  return {{"tokenizer.ggml.model", ggufString("gpt2")}, {"tokenizer.ggml.pre", ggufString(pre)},
          {"tokenizer.ggml.tokens", strings(tokens)},   {"tokenizer.ggml.token_type", int32s(types)},
          {"tokenizer.ggml.merges", strings(merges)}};
}

// Llama 3's rope_scaling as llama.cpp's converter stores it: per rotary pair, the divisor
// of the unscaled inverse frequency (1 for short wavelengths, `factor` for long ones,
// the smooth interpolation's divisor between), as an F32 rope_freqs tensor.
GgufTensorData llama3RopeFreqs(const ModelConfig& c) {
  const RopeScaling& rs = c.ropeScaling;
  const double pi = 3.14159265358979323846, oldLen = rs.originalMaxPositionEmbeddings;
  std::vector<float> factors;
  for (int i = 0; i < c.headDim / 2; ++i) {
    const double wavelen = 2 * pi * std::pow(double(c.ropeTheta), double(2 * i) / double(c.headDim));
    double factor = 1.0;
    if (wavelen > oldLen / rs.lowFreqFactor) {
      factor = rs.factor;
    } else if (wavelen >= oldLen / rs.highFreqFactor) {
      const double smooth = (oldLen / wavelen - rs.lowFreqFactor) / (rs.highFreqFactor - rs.lowFreqFactor);
      factor = 1.0 / ((1 - smooth) / rs.factor + smooth);
    }
    factors.push_back(float(factor));
  }
  GgufTensorData t{"rope_freqs.weight", GgmlType::F32, {int64_t(factors.size())}, {}};
  t.bytes.resize(factors.size() * sizeof(float));
  std::memcpy(t.bytes.data(), factors.data(), t.bytes.size());
  return t;
}

std::string writeGgufFromFolder(const std::string& srcDir, const std::string& dstPath, const GgufTypeChooser& typeFor) {
  const auto model = loadModel(srcDir);
  const ModelConfig& c = model->config;
  const std::string arch = archOf(c.architecture);
  Metadata m = hyperParameters(c, arch);
  if (model->tokenizer->kind() == TokenizerKind::SentencePiece) {
    addSentencePiece(*model, m);
  } else {
    const Metadata t = ggufTokenizerMetadataFromJson(model->tokenizerPath, arch == "llama" ? "llama-bpe" : "qwen2");
    m.insert(m.end(), t.begin(), t.end());
    m.push_back({"tokenizer.ggml.add_bos_token", ggufBool(model->encodePrompt("").size() == 1)});
  }
  m.push_back({"tokenizer.ggml.bos_token_id", ggufUint32(uint32_t(c.bosTokenId))});
  m.push_back({"tokenizer.ggml.eos_token_id", ggufUint32(uint32_t(c.eosTokenIds.at(0)))});
  if (!model->tokenizerSettings.chatTemplate.empty())
    m.push_back({"tokenizer.chat_template", ggufString(model->tokenizerSettings.chatTemplate)});
  std::vector<GgufTensorData> tensors;
  if (c.ropeScaling.type == RopeScaling::Type::Llama3) tensors.push_back(llama3RopeFreqs(c));
  const bool permute = arch == "llama";
  for (const auto& [name, view] : model->weights->all())
    if (!(c.tieWordEmbeddings && name == "lm_head.weight")) tensors.push_back(exported(view, c, permute, typeFor));
  writeGguf(dstPath, m, tensors);
  return dstPath;
}

}  // namespace lwb::test
