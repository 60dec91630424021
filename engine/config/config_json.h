#pragma once
// EngineConfig as JSON under vLLM's knob names, walked from the knob table: the bench
// --json output, the GUI's saved runs and knob-change markers all use it.
#include <nlohmann/json.hpp>

#include "engine/config/engine_config.h"

namespace lwb {

// {"max_num_batched_tokens": 0, ..., "speculative_config": null}: every knob of the table.
nlohmann::json configToJson(const EngineConfig& c);
// Knobs missing from `j` keep their value in `base` (older saved runs lack newer knobs);
// keys that are not knobs are ignored. Throws lwb::Error naming the knob when a value
// has the wrong type or is not a choice. Ranges are not checked here: validate() does.
EngineConfig configFromJson(const nlohmann::json& j, const EngineConfig& base = {});

}  // namespace lwb
