#include "engine/sample/filtered_draw.h"

#include "engine/sample/bucketed_draw.h"

#include <algorithm>
#include <cmath>
#include <limits>

// A sampled token must not depend on the CPU or the build's -march: compilers contract
// a*b+c into an FMA by default in C++ where the target has one.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace lwb {

namespace {

// Higher z first; ties: lower id first (the full sort's order).
struct Ranked {
  const float* z;
  bool operator()(int a, int b) const { return z[a] > z[b] || (z[a] == z[b] && a < b); }
};

// The lowest z a token may have and still matter: not negligible, and not below min-p's
// cut (p >= min_p ⇔ z - z_max >= log(min_p)). Loose by a margin; the exact test is on p.
float candidateFloor(float zMax, float minP) {
  float floor = zMax - kNegligibleNats;
  if (minP > 0.0f) floor = std::max(floor, zMax + float(std::log(double(minP))) - 1e-4f * (1.0f + std::fabs(zMax)));
  return floor;
}

// Ids with z >= floor, gathered into `buf` (kept at the vocabulary's size across calls,
// so nothing is allocated or cleared per token) and copied to `ids`. With top-k the list
// never holds much more than 2k + a chunk: when it fills, the best k stay and the floor
// rises to the k-th (a threshold pass, not a sort).
void gatherCandidates(const float* z, int n, float floor, int topK, std::vector<int>& buf, std::vector<int>& ids) {
  if (buf.size() < size_t(n) + kScanLanes) buf.resize(size_t(n) + kScanLanes);
  int* out = buf.data();
  constexpr int kChunk = 1024;
  const size_t cap = topK > 0 ? std::max<size_t>(2 * size_t(topK), kChunk) : std::numeric_limits<size_t>::max();
  size_t count = 0;
  for (int c0 = 0; c0 < n; c0 += kChunk) {
    count += size_t(gatherAtLeast(z, c0, std::min(n, c0 + kChunk), floor, out + count));
    if (count < cap) continue;
    std::nth_element(out, out + (topK - 1), out + count, Ranked{z});
    count = size_t(topK);
    floor = z[out[count - 1]];
  }
  ids.assign(out, out + count);
}

// The full-sort algorithm on the (few) candidates, in rank order: bit-identical to
// sorting the whole vocabulary, since the dropped tokens add nothing to any sum.
int sortedDraw(const float* z, float zMax, const FilterSettings& f, double u, DrawScratch& s) {
  std::vector<int>& ids = s.ids;
  std::sort(ids.begin(), ids.end(), Ranked{z});
  s.probs.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) s.probs[i] = std::exp(double(z[ids[i]]) - zMax);
  const std::vector<double>& p = s.probs;
  size_t keep = ids.size();
  if (f.minP > 0.0f) {
    const double cutoff = f.minP * p[0];
    while (keep > 1 && p[keep - 1] < cutoff) --keep;
  }
  if (f.topP < 1.0f) {
    double kept = 0.0;
    for (size_t i = 0; i < keep; ++i) kept += p[i];
    double cum = 0.0;
    for (size_t i = 0; i < keep; ++i) {
      cum += p[i];
      if (cum >= f.topP * kept) {
        keep = i + 1;
        break;
      }
    }
  }
  double mass = 0.0;
  for (size_t i = 0; i < keep; ++i) mass += p[i];
  const double r = u * mass;
  double cum = 0.0;
  for (size_t i = 0; i < keep; ++i) {
    cum += p[i];
    if (r < cum) return ids[i];
  }
  return ids[keep - 1];
}

}  // namespace

int filteredDraw(const float* z, int vocabSize, const FilterSettings& f, double u, DrawScratch& s) {
  return filteredDraw(z, vocabSize, rowMax(z, vocabSize), f, u, s);
}

int filteredDraw(const float* z, int vocabSize, float zMax, const FilterSettings& f, double u, DrawScratch& s) {
  if (!std::isfinite(zMax)) return rowArgmax(z, vocabSize);  // all -inf (or an +inf): nothing to weigh
  const float floor = candidateFloor(zMax, f.minP);
  const int numCandidates = f.topK > 0 ? 0 : countAtLeast(z, vocabSize, floor);
  if (numCandidates > vocabSize / 4) return bucketedDraw(z, vocabSize, zMax, floor, f, u, s);  // dense: on the row
  gatherCandidates(z, vocabSize, floor, f.topK, s.gathered, s.ids);
  if (numCandidates > kMaxSortedCandidates) {  // many, but a minority: on their values, in id order
    s.values.resize(s.ids.size());
    for (size_t i = 0; i < s.ids.size(); ++i) s.values[i] = z[s.ids[i]];
    return s.ids[size_t(bucketedDraw(s.values.data(), int(s.values.size()), zMax, floor, f, u, s))];
  }
  if (f.topK > 0 && s.ids.size() > size_t(f.topK)) {
    std::nth_element(s.ids.begin(), s.ids.begin() + (f.topK - 1), s.ids.end(), Ranked{z});
    s.ids.resize(size_t(f.topK));
  }
  return sortedDraw(z, zMax, f, u, s);
}

}  // namespace lwb
