#include "engine/sched/stop_check.h"

#include <algorithm>
#include <cmath>

namespace lwb {

namespace {
bool contains(const std::vector<int>& ids, int id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); }
}  // namespace

void maskStopTokens(const Request& r, const std::vector<int>& modelStopIds, float* logits, int vocabSize) {
  if (r.numOutputTokens() >= r.sampling.minTokens) return;
  auto mask = [&](int id) {
    if (id >= 0 && id < vocabSize) logits[id] = -INFINITY;
  };
  if (!r.sampling.ignoreEos)
    for (int id : modelStopIds) mask(id);
  for (int id : r.sampling.stopTokenIds) mask(id);
}

FinishReason checkStop(const Request& r, const std::vector<int>& modelStopIds, int maxModelLen, OutputText& text) {
  const SamplingParams& p = r.sampling;
  const int tokenId = r.tokenIds.back();
  const int n = r.numOutputTokens();
  const bool atModelLimit = r.numTokens() >= maxModelLen;
  if (n < p.minTokens) {
    text.push(tokenId, false);
    return atModelLimit ? FinishReason::Length : FinishReason::None;
  }
  if (!p.ignoreEos && contains(modelStopIds, tokenId)) return FinishReason::Stop;
  if (contains(p.stopTokenIds, tokenId)) return FinishReason::Stop;
  if (text.push(tokenId, n > p.minTokens)) return FinishReason::Stop;
  if (atModelLimit || n >= p.maxTokens) return FinishReason::Length;
  return FinishReason::None;
}

}  // namespace lwb
