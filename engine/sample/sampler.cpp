#include "engine/sample/sampler.h"

#include "engine/sample/rejection_sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_set>

namespace lwb {

namespace {

// log(sum(exp(x))) over a row, stable.
double logSumExp(const float* x, int n) {
  float m = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < n; ++i) m = std::max(m, x[i]);
  if (!std::isfinite(m)) return m;
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += std::exp(double(x[i]) - m);
  return m + std::log(s);
}

// vLLM's repetition penalty: every id seen in prompt or output is penalised once.
void applyRepetitionPenalty(float* logits, int vocabSize, const std::vector<int>& history, float penalty) {
  std::unordered_set<int> seen(history.begin(), history.end());
  for (int id : seen) {
    if (id < 0 || id >= vocabSize) continue;
    logits[id] = logits[id] > 0 ? logits[id] / penalty : logits[id] * penalty;
  }
}

// Uniform double in [0, 1) from 53 random bits: the same on every standard library.
double uniform01(std::mt19937_64& rng) { return double(rng() >> 11) * (1.0 / 9007199254740992.0); }

}  // namespace

std::vector<std::pair<int, float>> topLogprobs(const float* logits, int vocabSize, int k) {
  k = std::clamp(k, 0, vocabSize);
  std::vector<int> ids(vocabSize);
  std::iota(ids.begin(), ids.end(), 0);
  auto better = [&](int a, int b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), better);
  const double lse = logSumExp(logits, vocabSize);
  std::vector<std::pair<int, float>> out;
  out.reserve(k);
  for (int i = 0; i < k; ++i) out.emplace_back(ids[i], float(double(logits[ids[i]]) - lse));
  return out;
}

RequestSampler::RequestSampler(const SamplingParams& params, uint64_t fallbackSeed)
    : params_(params), rng_(params.seed.value_or(fallbackSeed)) {}

SampleResult RequestSampler::sample(float* logits, int vocabSize, const std::vector<int>& history) {
  return choose(logits, vocabSize, history, [&](float* l) {
    return params_.temperature < 1e-5f ? rowArgmax(l, vocabSize) : sampleFiltered(l, vocabSize);
  });
}

SampleResult RequestSampler::verify(float* logits, int vocabSize, const std::vector<int>& history, int draftToken,
                                    const std::vector<double>* draftProbs, bool* accepted) {
  return choose(logits, vocabSize, history, [&](float* l) {
    if (params_.temperature >= 1e-5f) return verifyFiltered(l, vocabSize, draftToken, draftProbs, accepted);
    const int best = rowArgmax(l, vocabSize);
    *accepted = best == draftToken;
    return best;
  });
}

// Logprobs, the repetition penalty, then `pick` on the penalised logits.
template <typename Choose>
SampleResult RequestSampler::choose(float* logits, int vocabSize, const std::vector<int>& history, Choose pick) {
  SampleResult result;
  // Logprobs are of the raw distribution, before penalties and temperature (vLLM default),
  // and only when asked for: a log-sum-exp over the vocabulary costs more than greedy
  // sampling itself.
  const bool wantLogprobs = params_.logprobs > 0;
  const double rawLse = wantLogprobs ? logSumExp(logits, vocabSize) : 0.0;
  if (wantLogprobs) result.topLogprobs = topLogprobs(logits, vocabSize, params_.logprobs);
  std::vector<float> raw;  // kept only when the penalty rewrites logits in place
  if (params_.repetitionPenalty != 1.0f) {
    if (wantLogprobs) raw.assign(logits, logits + vocabSize);
    applyRepetitionPenalty(logits, vocabSize, history, params_.repetitionPenalty);
  }
  result.tokenId = pick(logits);
  if (wantLogprobs) {
    const float rawChosen = raw.empty() ? logits[result.tokenId] : raw[result.tokenId];
    result.logprob = float(double(rawChosen) - rawLse);
  }
  return result;
}

int RequestSampler::verifyFiltered(float* logits, int vocabSize, int draftToken, const std::vector<double>* draftProbs,
                                   bool* accepted) {
  const float invT = 1.0f / params_.temperature;
  scaleRow(logits, vocabSize, invT);
  std::vector<double> p;
  filteredProbs(logits, vocabSize, {params_.minP, params_.topK, params_.topP}, p);
  const double uAccept = uniform01(rng_);
  const double uResidual = uniform01(rng_);
  const DraftVerdict v = verifyDraft(p, draftProbs, draftToken, uAccept, uResidual);
  *accepted = v.accepted;
  return v.tokenId;
}

void samplingProbs(const SamplingParams& params, float* logits, int vocabSize, const std::vector<int>& history,
                   std::vector<double>& probs) {
  if (params.repetitionPenalty != 1.0f) applyRepetitionPenalty(logits, vocabSize, history, params.repetitionPenalty);
  if (params.temperature < 1e-5f) {
    probs.assign(size_t(vocabSize), 0.0);
    probs[size_t(rowArgmax(logits, vocabSize))] = 1.0;
    return;
  }
  const float invT = 1.0f / params.temperature;
  scaleRow(logits, vocabSize, invT);
  filteredProbs(logits, vocabSize, {params.minP, params.topK, params.topP}, probs);
}

// Temperature, then min-p, top-k and top-p (filtered_draw.h: no sort of the vocabulary),
// then one draw.
int RequestSampler::sampleFiltered(float* logits, int vocabSize) {
  const float invT = 1.0f / params_.temperature;
  const float zMax = invT != 1.0f ? scaleRowMax(logits, vocabSize, invT) : rowMax(logits, vocabSize);
  const FilterSettings filters{params_.minP, params_.topK, params_.topP};
  return filteredDraw(logits, vocabSize, zMax, filters, uniform01(rng_), scratch_);
}

}  // namespace lwb
