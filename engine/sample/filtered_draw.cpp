#include "engine/sample/filtered_draw.h"

#include "engine/sample/bucketed_draw.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// A sampled token must not depend on the CPU: compilers contract a*b+c into an FMA by
// default in C++, which the AVX2/AVX-512 clones below would do and the baseline clone
// cannot.
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

// Rows are scanned in blocks of kLanes with independent lanes, a form the compiler turns
// into packed compares and max (x > m ? x : m is exactly maxps), with no carried dependency.
constexpr int kLanes = 16;

// Ids in [begin, end) with z >= floor, written from `out` on (which has kLanes entries
// of slack past the row's size); blocks without one are skipped after one packed compare.
int gatherRange(const float* z, int begin, int end, float floor, int* out) {
  int count = 0;
  for (int block = begin; block < end; block += kLanes) {
    const int blockEnd = std::min(end, block + kLanes);
    int hits = 0;
    for (int i = block; i < blockEnd; ++i) hits |= int(z[i] >= floor);
    if (!hits) continue;
    for (int i = block; i < blockEnd; ++i) {  // branch-free: a flat row keeps most of them
      out[count] = i;
      count += int(z[i] >= floor);
    }
  }
  return count;
}

#if defined(__x86_64__)
// The same with AVX-512's compress: 16 ids per compare and a full-width store (the slack
// takes the lanes past the count), without a branch (rows where a block hits or not at
// random would mispredict it).
__attribute__((target("avx512f"))) int gatherRangeAvx512(const float* z, int begin, int end, float floor, int* out) {
  const __m512 bound = _mm512_set1_ps(floor);
  __m512i ids = _mm512_add_epi32(_mm512_set1_epi32(begin),
                                 _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  int count = 0, i = begin;
  for (; i + kLanes <= end; i += kLanes, ids = _mm512_add_epi32(ids, _mm512_set1_epi32(kLanes))) {
    const __mmask16 hit = _mm512_cmp_ps_mask(_mm512_loadu_ps(z + i), bound, _CMP_GE_OQ);  // NaN: no hit
    _mm512_storeu_si512(out + count, _mm512_maskz_compress_epi32(hit, ids));
    count += std::popcount(unsigned(hit));
  }
  return count + gatherRange(z, i, end, floor, out + count);
}
#endif

int gatherRangeBest(const float* z, int begin, int end, float floor, int* out) {
#if defined(__x86_64__)
  static const bool hasAvx512 = __builtin_cpu_supports("avx512f");
  if (hasAvx512) return gatherRangeAvx512(z, begin, end, floor, out);
#endif
  return gatherRange(z, begin, end, floor, out);
}

// Ids with z >= floor, gathered into `buf` (kept at the vocabulary's size across calls,
// so nothing is allocated or cleared per token) and copied to `ids`. With top-k the list
// never holds much more than 2k + a chunk: when it fills, the best k stay and the floor
// rises to the k-th (a threshold pass, not a sort).
void gatherCandidates(const float* z, int n, float floor, int topK, std::vector<int>& buf, std::vector<int>& ids) {
  if (buf.size() < size_t(n) + kLanes) buf.resize(size_t(n) + kLanes);
  int* out = buf.data();
  constexpr int kChunk = 1024;
  const size_t cap = topK > 0 ? std::max<size_t>(2 * size_t(topK), kChunk) : std::numeric_limits<size_t>::max();
  size_t count = 0;
  for (int c0 = 0; c0 < n; c0 += kChunk) {
    count += size_t(gatherRangeBest(z, c0, std::min(n, c0 + kChunk), floor, out + count));
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

// How many tokens have z >= floor: a packed count, to choose the path before gathering.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) int countAtLeast(const float* z, int n,
                                                                                             float floor) {
  int count = 0;
  for (int i = 0; i < n; ++i) count += int(z[i] >= floor);
  return count;
}

}  // namespace

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) float rowMax(const float* z, int n) {
  float lane[kLanes];
  std::fill(lane, lane + kLanes, -std::numeric_limits<float>::infinity());
  int i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lane[j] = z[i + j] > lane[j] ? z[i + j] : lane[j];
  float m = -std::numeric_limits<float>::infinity();
  for (; i < n; ++i) m = z[i] > m ? z[i] : m;
  for (float v : lane) m = v > m ? v : m;
  return m;
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void scaleRow(float* z, int n,
                                                                                          float factor) {
  for (int i = 0; i < n; ++i) z[i] *= factor;
}

int rowArgmax(const float* z, int n) {
  const float m = rowMax(z, n);
  for (int block = 0; block < n; block += kLanes) {
    const int end = std::min(n, block + kLanes);
    int hits = 0;
    for (int i = block; i < end; ++i) hits |= int(z[i] == m);
    if (!hits) continue;
    for (int i = block; i < end; ++i)
      if (z[i] == m) return i;
  }
  return 0;  // every value NaN
}

int filteredDraw(const float* z, int vocabSize, const FilterSettings& f, double u, DrawScratch& s) {
  const float zMax = rowMax(z, vocabSize);
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
