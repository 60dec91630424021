#pragma once
// The knob table's values as a remote server reports them: the entries of its
// configuration (vLLM's vllm:cache_config_info labels, llama.cpp's /props) that mean one
// of our knobs, parsed as that knob parses its text. They are the server's start-up
// flags, shown read-only; a knob the server does not report has no entry (unknown), and
// a reported value that does not parse is a problem named in words, not a guess.
#include <map>
#include <string>
#include <vector>

#include "engine/config/knobs.h"
#include "remote/server_config.h"

namespace lwb::remote {

struct ServerKnobValue {
  KnobValue value;
  std::string text;    // as the server wrote it: "True", "16"
  std::string source;  // "vllm:cache_config_info block_size", "/props total_slots"
};

struct ServerKnobs {
  std::map<std::string, ServerKnobValue> known;  // knob name → value
  std::vector<std::string> problems;             // "block_size: expected ..., found 'x' (vllm:cache_config_info)"
};

ServerKnobs knobsFromServerConfig(const RemoteServerConfig& config);

}  // namespace lwb::remote
