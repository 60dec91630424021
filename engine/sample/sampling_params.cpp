#include "engine/sample/sampling_params.h"

#include <cmath>

#include "engine/common/error.h"

namespace lwb {

namespace {
std::string num(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}
}  // namespace

void SamplingParams::validate() const {
  check(std::isfinite(temperature) && temperature >= 0.0f,
        "temperature: expected a number >= 0 (0 = greedy), found " + num(temperature));
  check(std::isfinite(topP) && topP > 0.0f && topP <= 1.0f,
        "top_p: expected a value in (0, 1], found " + num(topP));
  check(topK >= -1, "top_k: expected -1 or 0 (off) or a positive count, found " + std::to_string(topK));
  check(std::isfinite(minP) && minP >= 0.0f && minP <= 1.0f,
        "min_p: expected a value in [0, 1], found " + num(minP));
  check(std::isfinite(repetitionPenalty) && repetitionPenalty > 0.0f,
        "repetition_penalty: expected a value > 0 (1 = off), found " + num(repetitionPenalty));
  check(maxTokens >= 1, "max_tokens: expected at least 1, found " + std::to_string(maxTokens));
  check(minTokens >= 0 && minTokens <= maxTokens, "min_tokens: expected 0 to max_tokens (" +
                                                      std::to_string(maxTokens) + "), found " +
                                                      std::to_string(minTokens));
  check(logprobs >= 0 && logprobs <= 20, "logprobs: expected 0 to 20, found " + std::to_string(logprobs));
  for (int id : stopTokenIds)
    check(id >= 0, "stop_token_ids: expected non-negative token ids, found " + std::to_string(id));
  for (const std::string& s : stop) check(!s.empty(), "stop: stop strings must not be empty");
}

}  // namespace lwb
