#include "engine/model/model_config.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/common/error.h"
#include "engine/common/json.h"

namespace lwb {

namespace {

using json = nlohmann::json;

// Reads typed fields of one JSON object, naming the file and the field in every error.
// A field that is present but null counts as absent (HF writes "head_dim": null).
class FieldReader {
 public:
  FieldReader(const json& obj, std::string file, std::string prefix = "")
      : obj_(obj), file_(std::move(file)), prefix_(std::move(prefix)) {}

  bool has(const char* key) const { return obj_.contains(key) && !obj_[key].is_null(); }
  const json& at(const char* key) const { return obj_[key]; }

  int positiveInt(const char* key) const {
    requireField(key);
    return optionalPositiveInt(key, 0);
  }
  int optionalPositiveInt(const char* key, int fallback) const {
    if (!has(key)) return fallback;
    const json& v = obj_[key];
    if (!v.is_number_integer() || v.get<long long>() <= 0 || v.get<long long>() > (1ll << 30))
      fail(key, v, "a positive integer");
    return v.get<int>();
  }
  double positiveNumber(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = obj_[key];
    if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) fail(key, v, "a positive number");
    return v.get<double>();
  }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!obj_[key].is_boolean()) fail(key, obj_[key], "true or false");
    return obj_[key].get<bool>();
  }
  std::string string(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!obj_[key].is_string()) fail(key, obj_[key], "a string");
    return obj_[key].get<std::string>();
  }
  std::vector<int> intOrList(const char* key, std::vector<int> fallback) const {
    if (!has(key)) return fallback;
    const json& v = obj_[key];
    std::vector<int> ids;
    auto isId = [](const json& e) { return e.is_number_integer() && e.get<long long>() >= 0 && e.get<long long>() <= INT32_MAX; };
    if (isId(v)) return {v.get<int>()};
    if (!v.is_array()) fail(key, v, "a token id or a list of token ids");
    for (const json& e : v) {
      if (!isId(e)) fail(key, v, "a token id or a list of token ids");
      ids.push_back(e.get<int>());
    }
    return ids;
  }
  void requireField(const char* key) const {
    check(has(key), file_ + ": missing required field '" + prefix_ + key + "'");
  }
  [[noreturn]] void fail(const char* key, const json& value, const std::string& expected) const {
    throw Error(file_ + ": field '" + prefix_ + key + "' is " + value.dump() + ", expected " + expected);
  }

 private:
  const json& obj_;
  std::string file_, prefix_;
};

// The architectures the executors implement, with config.json's model_type for each.
struct Architecture {
  const char* name;
  const char* modelType;
};
constexpr Architecture kArchitectures[] = {{"LlamaForCausalLM", "llama"},
                                           {"MistralForCausalLM", "mistral"},
                                           {"Qwen2ForCausalLM", "qwen2"},
                                           {"Qwen3ForCausalLM", "qwen3"}};

std::string parseArchitecture(const FieldReader& f, const std::string& file) {
  const std::string supported = std::string("one of ") + supportedArchitectures();
  if (f.has("architectures")) {
    const json& a = f.at("architectures");
    if (!a.is_array() || a.empty() || !a[0].is_string()) f.fail("architectures", a, "a list such as [\"LlamaForCausalLM\"]");
    const std::string arch = a[0].get<std::string>();
    for (const Architecture& known : kArchitectures)
      if (arch == known.name) return arch;
    f.fail("architectures", a, supported + " (architecture " + arch + " is not supported)");
  }
  check(f.has("model_type"), file + ": missing required field 'architectures' (or 'model_type')");
  const std::string type = f.string("model_type", "");
  for (const Architecture& known : kArchitectures)
    if (type == known.modelType) return known.name;
  std::string types;
  for (const Architecture& known : kArchitectures) types += std::string(types.empty() ? "" : ", ") + '"' + known.modelType + '"';
  f.fail("model_type", f.at("model_type"), "one of " + types);
}

RopeScaling parseRopeScaling(const FieldReader& top, const std::string& file) {
  RopeScaling rs;
  if (!top.has("rope_scaling")) return rs;
  const json& obj = top.at("rope_scaling");
  if (!obj.is_object()) top.fail("rope_scaling", obj, "null or an object");
  FieldReader f(obj, file, "rope_scaling.");
  const char* typeKey = f.has("rope_type") ? "rope_type" : "type";
  f.requireField(typeKey);
  const std::string type = f.string(typeKey, "");
  if (type == "default") return rs;
  if (type == "linear") {
    f.requireField("factor");
    rs.type = RopeScaling::Type::Linear;
    rs.factor = float(f.positiveNumber("factor", 1.0));
    return rs;
  }
  if (type == "llama3") {
    for (const char* key : {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
      f.requireField(key);
    rs.type = RopeScaling::Type::Llama3;
    rs.factor = float(f.positiveNumber("factor", 1.0));
    rs.lowFreqFactor = float(f.positiveNumber("low_freq_factor", 1.0));
    rs.highFreqFactor = float(f.positiveNumber("high_freq_factor", 4.0));
    rs.originalMaxPositionEmbeddings = f.optionalPositiveInt("original_max_position_embeddings", 8192);
    check(rs.highFreqFactor > rs.lowFreqFactor, file + ": rope_scaling.high_freq_factor " +
                                                    std::to_string(rs.highFreqFactor) +
                                                    " must be greater than low_freq_factor " +
                                                    std::to_string(rs.lowFreqFactor));
    return rs;
  }
  throw Error(file + ": unsupported rope_scaling.rope_type \"" + type +
              "\" (supported: \"default\", \"linear\", \"llama3\")");
}

// Features of the Llama family this engine does not implement: refuse them rather than
// compute something different from the reference. Qwen2's q/k/v biases are part of the
// architecture (Hugging Face hard-codes them; attention_bias is not read there).
void rejectUnsupported(const FieldReader& f, const ModelConfig& c, const std::string& file) {
  if (f.has("hidden_act") && f.string("hidden_act", "") != "silu")
    f.fail("hidden_act", f.at("hidden_act"), "\"silu\"");
  const bool qwen2 = c.architecture == "Qwen2ForCausalLM";
  if (!qwen2 && f.boolean("attention_bias", false))
    throw Error(file + ": field 'attention_bias' is true; attention biases are only supported as Qwen2ForCausalLM has them");
  if (f.boolean("mlp_bias", false)) throw Error(file + ": field 'mlp_bias' is true; biases are not supported");
}

// Sliding-window attention is not implemented: within the window it is plain causal
// attention, so limiting the context keeps results exact. Qwen configs carry a
// sliding_window that only applies when use_sliding_window is true.
int contextLimit(const FieldReader& f, const ModelConfig& c) {
  const bool qwen = c.architecture == "Qwen2ForCausalLM" || c.architecture == "Qwen3ForCausalLM";
  if (!f.has("sliding_window") || (qwen && !f.boolean("use_sliding_window", false))) return c.maxPositionEmbeddings;
  return std::min(c.maxPositionEmbeddings, f.optionalPositiveInt("sliding_window", 1 << 30));
}

void validateShapes(const ModelConfig& c, const std::string& file) {
  check(c.numAttentionHeads % c.numKeyValueHeads == 0,
        file + ": num_attention_heads " + std::to_string(c.numAttentionHeads) +
            " is not a multiple of num_key_value_heads " + std::to_string(c.numKeyValueHeads));
  check(c.headDim % 2 == 0, file + ": head_dim " + std::to_string(c.headDim) + " must be even (RoPE rotates pairs)");
  for (int id : c.eosTokenIds)
    check(id < c.vocabSize, file + ": eos_token_id " + std::to_string(id) + " is not below vocab_size " +
                                std::to_string(c.vocabSize));
}

}  // namespace

const char* supportedArchitectures() {
  static const std::string list = [] {
    std::string names;
    for (const Architecture& known : kArchitectures) names += std::string(names.empty() ? "" : ", ") + known.name;
    return names;
  }();
  return list.c_str();
}

long long ModelConfig::numParameters() const {
  const long long h = hiddenSize, inter = intermediateSize, v = vocabSize;
  long long attention = h * qSize() + 2 * h * kvSize() + qSize() * h;
  if (qkvBias) attention += qSize() + 2 * kvSize();
  if (qkNorm) attention += 2 * headDim;
  const long long perLayer = 2 * h + attention + 3 * h * inter;
  return v * h + numHiddenLayers * perLayer + h + (tieWordEmbeddings ? 0 : v * h);
}

ModelConfig parseModelConfig(const std::string& jsonText, const std::string& fileName) {
  json root;
  try {
    root = parseJson(jsonText);
  } catch (const json::exception& e) {
    throw Error(fileName + ": not valid JSON: " + e.what());
  }
  check(root.is_object(), fileName + ": must be a JSON object, found " + root.type_name());
  FieldReader f(root, fileName);
  ModelConfig c;
  c.architecture = parseArchitecture(f, fileName);
  c.hiddenSize = f.positiveInt("hidden_size");
  c.intermediateSize = f.positiveInt("intermediate_size");
  c.numAttentionHeads = f.positiveInt("num_attention_heads");
  c.numHiddenLayers = f.positiveInt("num_hidden_layers");
  c.vocabSize = f.positiveInt("vocab_size");
  c.numKeyValueHeads = f.optionalPositiveInt("num_key_value_heads", c.numAttentionHeads);
  if (!f.has("head_dim"))
    check(c.hiddenSize % c.numAttentionHeads == 0,
          fileName + ": hidden_size " + std::to_string(c.hiddenSize) + " is not a multiple of num_attention_heads " +
              std::to_string(c.numAttentionHeads) + " (and head_dim is not given)");
  c.headDim = f.optionalPositiveInt("head_dim", c.hiddenSize / c.numAttentionHeads);
  c.maxPositionEmbeddings = f.optionalPositiveInt("max_position_embeddings", 2048);
  c.rmsNormEps = float(f.positiveNumber("rms_norm_eps", 1e-6));
  c.ropeTheta = float(f.positiveNumber("rope_theta", 10000.0));
  c.ropeScaling = parseRopeScaling(f, fileName);
  c.tieWordEmbeddings = f.boolean("tie_word_embeddings", false);
  const std::vector<int> bos = f.intOrList("bos_token_id", {1});
  if (bos.empty()) f.fail("bos_token_id", f.at("bos_token_id"), "a token id");
  c.bosTokenId = bos[0];
  c.eosTokenIds = f.intOrList("eos_token_id", {2});
  c.torchDtype = f.string("torch_dtype", f.string("dtype", ""));
  c.qkvBias = c.architecture == "Qwen2ForCausalLM";
  c.qkNorm = c.architecture == "Qwen3ForCausalLM";
  c.maxPositionEmbeddings = contextLimit(f, c);
  rejectUnsupported(f, c, fileName);
  validateShapes(c, fileName);
  return c;
}

ModelConfig loadModelConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  check(bool(in), path + ": cannot open (config.json is required)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parseModelConfig(ss.str(), path);
}

std::vector<float> ropeInvFreq(const ModelConfig& config) {
  const int dim = config.headDim;
  const RopeScaling& rs = config.ropeScaling;
  std::vector<float> out(size_t(dim / 2));
  // Computed in double, as Hugging Face's _compute_*_rope_parameters (which use float32)
  // rounded once at the end; every executor shares these values.
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < dim / 2; ++i) {
    double inv = 1.0 / std::pow(double(config.ropeTheta), double(2 * i) / double(dim));
    if (rs.type == RopeScaling::Type::Linear) inv /= rs.factor;
    if (rs.type == RopeScaling::Type::Llama3) {
      const double oldLen = rs.originalMaxPositionEmbeddings;
      const double lowFreqWavelen = oldLen / rs.lowFreqFactor;
      const double highFreqWavelen = oldLen / rs.highFreqFactor;
      const double wavelen = 2 * pi / inv;
      if (wavelen > lowFreqWavelen) {
        inv = inv / rs.factor;  // low frequencies: scaled fully
      } else if (wavelen >= highFreqWavelen) {  // medium: interpolate smoothly
        const double smooth = (oldLen / wavelen - rs.lowFreqFactor) / (rs.highFreqFactor - rs.lowFreqFactor);
        inv = (1 - smooth) * inv / rs.factor + smooth * inv;
      }
    }
    if (!rs.freqFactors.empty()) inv /= double(rs.freqFactors.at(size_t(i)));
    out[size_t(i)] = float(inv);
  }
  return out;
}

}  // namespace lwb
