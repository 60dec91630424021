#pragma once
// One draw from softmax(logits / T) after min-p, top-k and top-p, without sorting the
// vocabulary. The semantics are those of a full sort by probability (ties: lower id
// first): min-p keeps p >= min_p * p_max, top-k the k most likely, top-p the smallest
// prefix of what is left whose mass reaches top_p of it; then r = u * mass picks along
// that order.
//
// How it avoids the sort: probabilities are exp(z - z_max) in double, so the first term
// of every sum is exactly 1 and a term below 2^-53 can never change a sum; tokens with
// z < z_max - 37.5 are dropped in one float pass (along with those below min-p's
// threshold), top-k keeps a running threshold while scanning, and only the survivors
// are sorted: the result is bit-identical to the full sort. When more than
// kMaxSortedCandidates survive and no top-k bounds them (flat distributions, high
// temperature), the bucketed path (bucketed_draw.h) weighs them in a histogram and sorts
// only the few tokens where top-p's cut and the draw stop.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/sample/row_scan.h"

namespace lwb {

struct FilterSettings {
  float minP = 0.0f;  // 0 = off
  int topK = 0;       // <= 0 = off
  float topP = 1.0f;  // 1 = off
};

constexpr int kMaxSortedCandidates = 4096;

// Reusable buffers, so a request's per-token draw does not allocate.
struct DrawScratch {
  std::vector<int> gathered;  // [vocabSize + 16], reused
  std::vector<int> ids;
  std::vector<float> values;  // z of ids, for the many-candidate path
  std::vector<double> probs;
  std::vector<uint64_t> keys;     // rank keys of one bucket's tokens, many-candidate path
  std::vector<float> keyValues;   // [keys.size()]: their z
  std::vector<double> keyProbs;   // [keys.size()]: their p
  std::vector<uint64_t> subKeys;  // those of one sub-bucket
  std::vector<uint8_t> subOf;     // [keys.size()]: each one's sub-bucket
  std::vector<uint32_t> masks;
  std::vector<uint16_t> bucketOf;  // [vocabSize]: each token's bucket, many-candidate path
};

// `z`: temperature-scaled logits [vocabSize] (read only). `u`: uniform in [0, 1).
int filteredDraw(const float* z, int vocabSize, const FilterSettings& f, double u, DrawScratch& scratch);
// The same when the caller has rowMax(z) (scaleRowMax's result).
int filteredDraw(const float* z, int vocabSize, float zMax, const FilterSettings& f, double u, DrawScratch& scratch);

}  // namespace lwb
