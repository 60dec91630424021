#include "engine/config/speculative_config.h"

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json.h"

namespace lwb {

namespace {

constexpr int kMaxSpeculativeTokens = 16;  // the verification rows one request may add

const char* const kPrefix = "speculative_config: ";  // the knob's vLLM name

int intField(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  check(v.is_number_integer(), std::string(kPrefix) + key + " is " + v.dump() + "; expected an integer");
  return v.get<int>();
}

SpecMethod parseMethod(const nlohmann::json& v) {
  check(v.is_string(), std::string(kPrefix) + "method is " + v.dump() + R"(; expected "ngram" or "draft_model")");
  const std::string m = v.get<std::string>();
  if (m == "ngram" || m == "[ngram]") return SpecMethod::Ngram;
  if (m == "draft_model") return SpecMethod::DraftModel;
  throw Error(std::string(kPrefix) + "method \"" + m + R"("; expected "ngram" or "draft_model")");
}

}  // namespace

std::string specMethodName(SpecMethod m) {
  switch (m) {
    case SpecMethod::Ngram: return "ngram";
    case SpecMethod::DraftModel: return "draft_model";
    case SpecMethod::None: break;
  }
  return "";
}

void SpeculativeConfig::validate() const {
  if (method == SpecMethod::None) return;
  const std::string k = std::to_string(numSpeculativeTokens);
  check(numSpeculativeTokens >= 1 && numSpeculativeTokens <= kMaxSpeculativeTokens,
        std::string(kPrefix) + "num_speculative_tokens is " + k + "; expected 1.." + std::to_string(kMaxSpeculativeTokens));
  if (method == SpecMethod::Ngram) {
    check(promptLookupMin >= 1, std::string(kPrefix) + "prompt_lookup_min is " + std::to_string(promptLookupMin) +
                                    "; expected at least 1");
    check(promptLookupMax >= promptLookupMin,
          std::string(kPrefix) + "prompt_lookup_max is " + std::to_string(promptLookupMax) +
              "; expected at least prompt_lookup_min (" + std::to_string(promptLookupMin) + ")");
  } else {
    check(!model.empty(), std::string(kPrefix) + "method draft_model needs \"model\": the draft model's folder");
  }
}

std::string SpeculativeConfig::toJson() const {
  if (method == SpecMethod::None) return "";
  nlohmann::json j = {{"method", specMethodName(method)}, {"num_speculative_tokens", numSpeculativeTokens}};
  if (method == SpecMethod::Ngram) {
    j["prompt_lookup_min"] = promptLookupMin;
    j["prompt_lookup_max"] = promptLookupMax;
  } else {
    j["model"] = model;
  }
  return j.dump();
}

SpeculativeConfig parseSpeculativeConfig(const std::string& text) {
  SpeculativeConfig c;
  if (text.empty()) return c;
  nlohmann::json j = parseJsonOrDiscarded(text);
  check(!j.is_discarded() && j.is_object(), std::string(kPrefix) + "'" + text + "' is not a JSON object");
  if (j.empty()) return c;
  for (const auto& [key, value] : j.items())
    check(key == "method" || key == "num_speculative_tokens" || key == "prompt_lookup_min" ||
              key == "prompt_lookup_max" || key == "model",
          std::string(kPrefix) + "unknown key \"" + key +
              "\"; expected method, num_speculative_tokens, prompt_lookup_min, prompt_lookup_max, model");
  if (j.contains("model")) {
    check(j["model"].is_string(), std::string(kPrefix) + "model is " + j["model"].dump() + "; expected a folder path");
    c.model = j["model"].get<std::string>();
  }
  c.method = j.contains("method") ? parseMethod(j["method"]) : c.model.empty() ? SpecMethod::None : SpecMethod::DraftModel;
  check(c.method != SpecMethod::None, std::string(kPrefix) + R"(no "method" and no "model"; expected one of them)");
  check(j.contains("num_speculative_tokens"), std::string(kPrefix) + "num_speculative_tokens is missing");
  c.numSpeculativeTokens = intField(j, "num_speculative_tokens");
  const bool hasMin = j.contains("prompt_lookup_min"), hasMax = j.contains("prompt_lookup_max");
  if (hasMin) c.promptLookupMin = intField(j, "prompt_lookup_min");
  if (hasMax) c.promptLookupMax = intField(j, "prompt_lookup_max");
  if (hasMin && !hasMax) c.promptLookupMax = c.promptLookupMin;
  if (hasMax && !hasMin) c.promptLookupMin = c.promptLookupMax;
  if (c.method == SpecMethod::Ngram && !c.model.empty())
    throw Error(std::string(kPrefix) + "model \"" + c.model + "\" given with method ngram; ngram needs no model");
  c.validate();
  return c;
}

bool draftModelDiffers(const SpeculativeConfig& a, const SpeculativeConfig& b) {
  const bool da = a.method == SpecMethod::DraftModel, db = b.method == SpecMethod::DraftModel;
  return da != db || (da && (a.model != b.model || a.numSpeculativeTokens != b.numSpeculativeTokens));
}

}  // namespace lwb
