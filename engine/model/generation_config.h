#pragma once
// generation_config.json as the sampling defaults (vLLM's --generation-config auto): a
// request takes the file's temperature, top_p, top_k, min_p, repetition_penalty and
// max_new_tokens for what it does not set itself, and the built-in values for the rest.
#include <string>
#include <vector>

#include "engine/sample/sampling_params.h"

namespace lwb {

struct GenerationDefaults;

struct SamplingDefaults {
  SamplingParams params;
  std::vector<std::string> fromModel;  // request field names taken from generation_config.json
  bool isFromModel(const std::string& field) const;
};

// Field names as requests spell them: temperature, top_p, top_k, min_p,
// repetition_penalty, max_tokens (generation_config.json's max_new_tokens).
SamplingDefaults samplingDefaults(const GenerationDefaults& g, const SamplingParams& builtIn = {});

// Throws lwb::Error naming `file`, the field and the value when a default is out of the
// range a request accepts (so a bad file fails at load, not at the first chat message).
void validateGenerationDefaults(const GenerationDefaults& g, const std::string& file);

}  // namespace lwb
