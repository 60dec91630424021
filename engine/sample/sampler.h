#pragma once
// Turns one row of logits into a token. Deterministic for a given seed: each request
// owns its random stream, so batch composition never changes what it samples.
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "engine/sample/filtered_draw.h"
#include "engine/sample/sampling_params.h"

namespace lwb {

struct SampleResult {
  int tokenId = -1;
  float logprob = 0.0f;                          // raw log-softmax of the chosen token (logprobs > 0)
  std::vector<std::pair<int, float>> topLogprobs;  // [params.logprobs], best first, raw
};

// One per request: holds the request's random generator.
class RequestSampler {
 public:
  // Without a seed the stream is seeded from `fallbackSeed` (engine-chosen, unique).
  RequestSampler(const SamplingParams& params, uint64_t fallbackSeed);
  // `history`: prompt + output ids so far (for the repetition penalty).
  // `logits` is modified in place (penalties, temperature) — pass a scratch copy.
  SampleResult sample(float* logits, int vocabSize, const std::vector<int>& history);
  // Speculative decoding: verifies `draftToken` at one position with the same logit
  // treatment as sample(). Greedy accepts when the argmax is the draft (the token is the
  // argmax either way, so outputs equal non-speculative greedy); otherwise speculative
  // sampling with this request's generator (rejection_sampler.h). `draftProbs`: the
  // draft model's distribution [vocabSize], or nullptr for an n-gram's point mass.
  SampleResult verify(float* logits, int vocabSize, const std::vector<int>& history, int draftToken,
                      const std::vector<double>* draftProbs, bool* accepted);

 private:
  template <typename Choose>
  SampleResult choose(float* logits, int vocabSize, const std::vector<int>& history, Choose pick);
  int sampleFiltered(float* logits, int vocabSize);
  int verifyFiltered(float* logits, int vocabSize, int draftToken, const std::vector<double>* draftProbs,
                     bool* accepted);
  SamplingParams params_;
  std::mt19937_64 rng_;
  DrawScratch scratch_;
};

// The distribution sample() draws from for `params` (penalty, temperature, filters) as
// probabilities [vocabSize]; greedy is a point mass on the argmax. `logits` is modified.
void samplingProbs(const SamplingParams& params, float* logits, int vocabSize, const std::vector<int>& history,
                   std::vector<double>& probs);

// Raw log-softmax top-k of a logits row, best first (ties: lower id first).
std::vector<std::pair<int, float>> topLogprobs(const float* logits, int vocabSize, int k);

}  // namespace lwb
