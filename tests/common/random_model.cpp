#include "random_model.h"

#include <sentencepiece_trainer.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <unordered_map>

#include "engine/common/error.h"
#include "engine/model/safetensors.h"

namespace lwb {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr int kTinyVocab = 400;

// Feeds the generated corpus to the trainer without a temporary file.
class VectorIterator : public sentencepiece::SentenceIterator {
 public:
  explicit VectorIterator(const std::vector<std::string>& lines) : lines_(lines) {}
  bool done() const override { return i_ >= lines_.size(); }
  void Next() override { ++i_; }
  const std::string& value() const override { return lines_[i_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& lines_;
  size_t i_ = 0;
};

// English-like sentences with digits, punctuation and a few non-ASCII letters, from a
// fixed seed: the same corpus (and so the same tokenizer) every run.
std::vector<std::string> tinyCorpus() {
  static const char* const words[] = {
      "the", "a", "of", "and", "to", "in", "she", "he", "was", "not", "her", "his", "it", "be",
      "with", "had", "for", "as", "you", "that", "but", "at", "on", "all", "have", "by", "which",
      "Mr.", "Mrs.", "Miss", "Elizabeth", "Darcy", "Emma", "Bennet", "house", "letter", "sister",
      "very", "much", "would", "could", "said", "think", "know", "little", "good", "great",
      "time", "day", "evening", "morning", "dance", "walk", "garden", "café", "naïve", "über",
      "—", "answer", "question", "hello", "world", "model", "token", "engine", "cache", "batch"};
  static const char* const endings[] = {".", ",", "!", "?", ";", ":", "'s", "."};
  std::mt19937 rng(42);
  std::vector<std::string> lines;
  for (int s = 0; s < 1500; ++s) {
    std::string line;
    const int n = 4 + int(rng() % 12);
    for (int w = 0; w < n; ++w) {
      if (w) line += ' ';
      if (rng() % 11 == 0) line += std::to_string(rng() % 2000);
      else line += words[rng() % std::size(words)];
      if (rng() % 7 == 0) line += endings[rng() % std::size(endings)];
    }
    lines.push_back(line);
  }
  return lines;
}

std::string trainTinyTokenizer() {
  const std::vector<std::string> corpus = tinyCorpus();
  VectorIterator it(corpus);
  const std::unordered_map<std::string, std::string> args = {
      {"model_type", "bpe"}, {"vocab_size", std::to_string(kTinyVocab)},
      {"byte_fallback", "true"}, {"split_digits", "true"}, {"character_coverage", "1.0"},
      {"unk_id", "0"}, {"bos_id", "1"}, {"eos_id", "2"}, {"pad_id", "-1"},
      {"user_defined_symbols", "<|system|>,<|user|>,<|assistant|>"},
      {"normalization_rule_name", "identity"}, {"remove_extra_whitespaces", "false"},
      {"add_dummy_prefix", "true"}, {"allow_whitespace_only_pieces", "true"},
      {"num_threads", "1"}, {"minloglevel", "2"}};
  std::string proto;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &it, &proto);
  check(status.ok(), "training the tiny test tokenizer failed: " + status.ToString());
  return proto;
}

// ---- weights -----------------------------------------------------------------------

std::vector<uint8_t> encodeValues(const std::vector<float>& values, DType dtype) {
  std::vector<uint8_t> bytes(values.size() * dtypeSize(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::F32) {
      std::memcpy(&bytes[i * 4], &values[i], 4);
      continue;
    }
    const uint16_t h = dtype == DType::F16 ? floatToF16(values[i]) : floatToBf16(values[i]);
    bytes[i * 2] = uint8_t(h & 0xff);
    bytes[i * 2 + 1] = uint8_t(h >> 8);
  }
  return bytes;
}

class TensorMaker {
 public:
  explicit TensorMaker(const RandomModelSpec& spec) : spec_(spec), rng_(spec.seed) {}

  void matrix(const std::string& name, int64_t rows, int64_t cols, DType dtype) {
    add(name, {rows, cols}, dtype, 0.0f);
  }
  void norm(const std::string& name, int64_t size) { add(name, {size}, spec_.normDType, 1.0f); }
  void bias(const std::string& name, int64_t size) { add(name, {size}, spec_.attentionDType, 0.0f, spec_.biasScale); }
  std::vector<TensorData> take() { return std::move(tensors_); }

 private:
  void add(const std::string& name, std::vector<int64_t> shape, DType dtype, float offset, float scale = 0) {
    if (scale == 0) scale = spec_.scale;
    std::uniform_real_distribution<float> dist(-scale, scale);
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    std::vector<float> values(static_cast<size_t>(numel));
    for (float& v : values) v = offset + dist(rng_);
    tensors_.push_back({name, dtype, std::move(shape), encodeValues(values, dtype)});
  }

  const RandomModelSpec& spec_;
  std::mt19937_64 rng_;
  std::vector<TensorData> tensors_;
};

std::vector<TensorData> randomTensors(const RandomModelSpec& spec) {
  const ModelConfig c = randomModelConfig(spec);
  TensorMaker m(spec);
  m.matrix("model.embed_tokens.weight", c.vocabSize, c.hiddenSize, spec.embeddingDType);
  for (int i = 0; i < c.numHiddenLayers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    m.norm(p + "input_layernorm.weight", c.hiddenSize);
    m.matrix(p + "self_attn.q_proj.weight", c.qSize(), c.hiddenSize, spec.attentionDType);
    m.matrix(p + "self_attn.k_proj.weight", c.kvSize(), c.hiddenSize, spec.attentionDType);
    m.matrix(p + "self_attn.v_proj.weight", c.kvSize(), c.hiddenSize, spec.attentionDType);
    m.matrix(p + "self_attn.o_proj.weight", c.hiddenSize, c.qSize(), spec.attentionDType);
    if (c.qkvBias) {  // Qwen2
      m.bias(p + "self_attn.q_proj.bias", c.qSize());
      m.bias(p + "self_attn.k_proj.bias", c.kvSize());
      m.bias(p + "self_attn.v_proj.bias", c.kvSize());
    }
    if (c.qkNorm) {  // Qwen3
      m.norm(p + "self_attn.q_norm.weight", c.headDim);
      m.norm(p + "self_attn.k_norm.weight", c.headDim);
    }
    m.norm(p + "post_attention_layernorm.weight", c.hiddenSize);
    m.matrix(p + "mlp.gate_proj.weight", c.intermediateSize, c.hiddenSize, spec.mlpDType);
    m.matrix(p + "mlp.up_proj.weight", c.intermediateSize, c.hiddenSize, spec.mlpDType);
    m.matrix(p + "mlp.down_proj.weight", c.hiddenSize, c.intermediateSize, spec.mlpDType);
  }
  m.norm("model.norm.weight", c.hiddenSize);
  if (!c.tieWordEmbeddings) m.matrix("lm_head.weight", c.vocabSize, c.hiddenSize, spec.lmHeadDType);
  return m.take();
}

// ---- config files ------------------------------------------------------------------

std::string modelType(const std::string& architecture) {
  if (architecture == "MistralForCausalLM") return "mistral";
  if (architecture == "Qwen2ForCausalLM") return "qwen2";
  if (architecture == "Qwen3ForCausalLM") return "qwen3";
  return "llama";
}

json configJson(const RandomModelSpec& s) {
  json j = {{"architectures", {s.architecture}},
            {"model_type", modelType(s.architecture)},
            {"hidden_size", s.hiddenSize},
            {"intermediate_size", s.intermediateSize},
            {"num_attention_heads", s.numAttentionHeads},
            {"num_key_value_heads", s.numKeyValueHeads},
            {"num_hidden_layers", s.numHiddenLayers},
            {"vocab_size", s.vocabSize},
            {"max_position_embeddings", s.maxPositionEmbeddings},
            {"rms_norm_eps", s.rmsNormEps},
            {"rope_theta", s.ropeTheta},
            {"rope_scaling", nullptr},
            {"tie_word_embeddings", s.tieWordEmbeddings},
            {"bos_token_id", s.bosTokenId},
            {"eos_token_id", s.eosTokenId},
            {"hidden_act", "silu"},
            {"torch_dtype", "float32"}};
  if (s.headDim) j["head_dim"] = s.headDim;
  if (s.architecture == "Qwen2ForCausalLM" || s.architecture == "Qwen3ForCausalLM") {
    // As the real configs: a sliding_window that use_sliding_window switches off.
    j["use_sliding_window"] = false;
    j["sliding_window"] = std::max(1, s.maxPositionEmbeddings / 4);
    j["max_window_layers"] = s.numHiddenLayers;
    if (s.architecture == "Qwen3ForCausalLM") j["attention_bias"] = false;
  }
  const RopeScaling& rs = s.ropeScaling;
  if (rs.type == RopeScaling::Type::Linear) j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", rs.factor}};
  if (rs.type == RopeScaling::Type::Llama3)
    j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", rs.factor}, {"low_freq_factor", rs.lowFreqFactor},
                         {"high_freq_factor", rs.highFreqFactor},
                         {"original_max_position_embeddings", rs.originalMaxPositionEmbeddings}};
  return j;
}

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  check(bool(out), path.string() + ": cannot open for writing");
  out << text;
}

}  // namespace

std::string RandomModelSpec::zephyrChatTemplate() {
  return "{{ bos_token }}{% for message in messages %}{{ '<|' + message['role'] + '|>\\n' + "
         "message['content'] + eos_token + '\\n' }}{% endfor %}{% if add_generation_prompt %}"
         "{{ '<|assistant|>\\n' }}{% endif %}";
}

ModelConfig randomModelConfig(const RandomModelSpec& s) {
  ModelConfig c;
  c.architecture = s.architecture;
  c.hiddenSize = s.hiddenSize;
  c.intermediateSize = s.intermediateSize;
  c.numAttentionHeads = s.numAttentionHeads;
  c.numKeyValueHeads = s.numKeyValueHeads;
  c.headDim = s.headDim ? s.headDim : s.hiddenSize / s.numAttentionHeads;
  c.numHiddenLayers = s.numHiddenLayers;
  c.vocabSize = s.vocabSize;
  c.maxPositionEmbeddings = s.maxPositionEmbeddings;
  c.rmsNormEps = s.rmsNormEps;
  c.ropeTheta = s.ropeTheta;
  c.ropeScaling = s.ropeScaling;
  c.tieWordEmbeddings = s.tieWordEmbeddings;
  c.bosTokenId = s.bosTokenId;
  c.eosTokenIds = {s.eosTokenId};
  c.torchDtype = "float32";
  c.qkvBias = s.architecture == "Qwen2ForCausalLM";
  c.qkNorm = s.architecture == "Qwen3ForCausalLM";
  return c;
}

const std::string& tinyTokenizerProto() {
  static std::once_flag once;
  static std::string proto;
  std::call_once(once, [] { proto = trainTinyTokenizer(); });
  return proto;
}

void writeTinyTokenizer(const std::string& path) { writeText(path, tinyTokenizerProto()); }

int tinyTokenizerVocabSize() { return kTinyVocab; }

std::string writeRandomLlamaModel(const std::string& dir, const RandomModelSpec& spec) {
  const fs::path root = fs::absolute(dir);
  fs::create_directories(root);
  writeText(root / "config.json", configJson(spec).dump(2));
  writeSafetensors((root / "model.safetensors").string(), randomTensors(spec));
  writeTinyTokenizer((root / "tokenizer.model").string());
  if (spec.writeTokenizerConfig) {
    json tc = {{"add_bos_token", true}, {"add_eos_token", false}, {"bos_token", "<s>"},
               {"eos_token", "</s>"}, {"unk_token", "<unk>"}, {"tokenizer_class", "LlamaTokenizer"}};
    if (!spec.chatTemplate.empty()) tc["chat_template"] = spec.chatTemplate;
    writeText(root / "tokenizer_config.json", tc.dump(2));
  }
  return root.string();
}

}  // namespace lwb
