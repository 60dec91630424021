#pragma once
// vLLM's speculative_config: which proposer guesses the next tokens and how many. Off
// by default. Parsed from the JSON object vLLM takes on its command line
// (`--speculative-config '{"method": "ngram", "num_speculative_tokens": 4}'`).
#include <string>

namespace lwb {

enum class SpecMethod { None, Ngram, DraftModel };
std::string specMethodName(SpecMethod m);  // "" | "ngram" | "draft_model"

struct SpeculativeConfig {
  SpecMethod method = SpecMethod::None;
  int numSpeculativeTokens = 0;  // num_speculative_tokens: k drafts per step and request
  int promptLookupMin = 5;       // prompt_lookup_min: shortest suffix n-gram looked up (ngram)
  int promptLookupMax = 5;       // prompt_lookup_max: longest suffix n-gram looked up (ngram)
  std::string model;             // model: the draft model's folder (draft_model)

  bool enabled() const { return method != SpecMethod::None && numSpeculativeTokens > 0; }
  // Throws lwb::Error naming the field (vLLM's name), the value and what is expected.
  void validate() const;
  std::string toJson() const;  // "" when off
  bool operator==(const SpeculativeConfig& o) const = default;
};

// `json`: an object with vLLM's keys (method, num_speculative_tokens, prompt_lookup_min,
// prompt_lookup_max, model). A "model" without "method" means draft_model, as vLLM
// infers it. As vLLM: ngram with neither prompt_lookup bound looks up 5-grams only; with
// one bound the other takes its value. "" or "{}" = off. Unknown keys, wrong types and
// out-of-range values are errors naming the key.
SpeculativeConfig parseSpeculativeConfig(const std::string& json);

// A draft model has its own weights and KV pool: switching to, from or between draft
// models, or its num_speculative_tokens, rebuilds; n-gram settings are live.
bool draftModelDiffers(const SpeculativeConfig& a, const SpeculativeConfig& b);

}  // namespace lwb
