#pragma once
// Per-request sampling settings, with vLLM's names and meanings.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lwb {

struct SamplingParams {
  float temperature = 1.0f;        // 0 = greedy
  float topP = 1.0f;               // (0, 1]
  int topK = 0;                    // 0 or -1 = off
  float minP = 0.0f;               // [0, 1]
  float repetitionPenalty = 1.0f;  // > 0; 1 = off (prompt and output tokens, as vLLM)
  int maxTokens = 256;             // >= 1
  int minTokens = 0;               // min_tokens: no EOS / stop id / stop string before this many
  bool ignoreEos = false;
  std::vector<int> stopTokenIds;   // in addition to the model's EOS ids
  std::vector<std::string> stop;   // stop strings (not included in the output text)
  std::optional<uint64_t> seed;    // same seed → same tokens
  int logprobs = 0;                // top-K logprobs per output token (raw log-softmax)

  // Throws lwb::Error naming the field and the value when out of range.
  void validate() const;
};

}  // namespace lwb
