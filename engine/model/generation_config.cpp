#include "engine/model/generation_config.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/model/model.h"

namespace lwb {

namespace {

template <typename T>
void take(const std::optional<T>& value, const char* field, T* out, std::vector<std::string>& fromModel) {
  if (!value) return;
  *out = *value;
  fromModel.emplace_back(field);
}

}  // namespace

bool SamplingDefaults::isFromModel(const std::string& field) const {
  return std::find(fromModel.begin(), fromModel.end(), field) != fromModel.end();
}

SamplingDefaults samplingDefaults(const GenerationDefaults& g, const SamplingParams& builtIn) {
  SamplingDefaults d{builtIn, {}};
  take(g.temperature, "temperature", &d.params.temperature, d.fromModel);
  take(g.topP, "top_p", &d.params.topP, d.fromModel);
  take(g.topK, "top_k", &d.params.topK, d.fromModel);
  take(g.minP, "min_p", &d.params.minP, d.fromModel);
  take(g.repetitionPenalty, "repetition_penalty", &d.params.repetitionPenalty, d.fromModel);
  take(g.maxNewTokens, "max_tokens", &d.params.maxTokens, d.fromModel);
  return d;
}

void validateGenerationDefaults(const GenerationDefaults& g, const std::string& file) {
  try {
    samplingDefaults(g).params.validate();
  } catch (const Error& e) {
    // SamplingParams names max_tokens; the file calls it max_new_tokens.
    std::string what = e.what();
    if (what.rfind("max_tokens", 0) == 0) what = "max_new_tokens" + what.substr(10);
    throw Error(file + ": " + what);
  }
}

}  // namespace lwb
