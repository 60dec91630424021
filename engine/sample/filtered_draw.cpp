#include "engine/sample/filtered_draw.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

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

// exp(-37.5) < 2^-54: a token that far below the best adds exactly nothing to a double
// sum that already holds p_max = 1, and cannot be drawn.
constexpr float kNegligible = 37.5f;

// Higher z first; ties: lower id first (the full sort's order).
struct Ranked {
  const float* z;
  bool operator()(int a, int b) const { return z[a] > z[b] || (z[a] == z[b] && a < b); }
};

// The lowest z a token may have and still matter: not negligible, and not below min-p's
// cut (p >= min_p ⇔ z - z_max >= log(min_p)). Loose by a margin; the exact test is on p.
float candidateFloor(float zMax, float minP) {
  float floor = zMax - kNegligible;
  if (minP > 0.0f) floor = std::max(floor, zMax + float(std::log(double(minP))) - 1e-4f * (1.0f + std::fabs(zMax)));
  return floor;
}

// Rows are scanned in blocks of kLanes with independent lanes, a form the compiler turns
// into packed compares and max (x > m ? x : m is exactly maxps), with no carried dependency.
constexpr int kLanes = 16;

// Ids with z >= floor, written into `buf` (kept at the vocabulary's size across calls,
// so nothing is allocated or cleared per token) and copied to `ids`; blocks without one
// are skipped after one packed compare. With top-k the list never holds much more than
// 2k: when it fills, the best k stay and the floor rises to the k-th (a threshold pass,
// not a sort).
void gatherCandidates(const float* z, int n, float floor, int topK, std::vector<int>& buf, std::vector<int>& ids) {
  if (buf.size() < size_t(n) + kLanes) buf.resize(size_t(n) + kLanes);
  int* out = buf.data();
  const size_t cap = topK > 0 ? std::max<size_t>(2 * size_t(topK), 1024) : std::numeric_limits<size_t>::max();
  size_t count = 0;
  for (int block = 0; block < n; block += kLanes) {
    const int end = std::min(n, block + kLanes);
    int hits = 0;
    for (int i = block; i < end; ++i) hits |= int(z[i] >= floor);
    if (!hits) continue;
    for (int i = block; i < end; ++i) {  // branch-free: a flat row keeps most of them
      out[count] = i;
      count += size_t(z[i] >= floor);
    }
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

// Buckets of z - z_max, monotone in p: every token of a bucket ranks above every token of
// the next. Summing bucket masses in bucket order is the rank-order sum up to rounding,
// and only the one bucket where a running sum crosses its target is sorted.
//
// A token's p is computed relative to its bucket: with x = z - z_max in bucket b,
// p = e^(-b·w) · e^(x + b·w), where |x + b·w| <= w = 37.5/1024 keeps e^(...) to a
// degree-8 polynomial (exact to ~1e-19) and e^(-b·w) comes from a table. So a bucket's
// mass is e^(-b·w) · Σ e^(x + b·w): one table product per bucket, none per token.
constexpr int kNumBuckets = 1024;
constexpr int kDropped = kNumBuckets;  // the slot of tokens below the floor, NaN, or cut by min-p
constexpr int kChunk = 512;            // tokens per pass of the packed loops below
constexpr double kBucketWidth = double(kNegligible) / kNumBuckets;  // 75/2048: exact in binary

// e^(-b·w) per bucket, from long double (rounded once to double).
const std::array<double, kNumBuckets> kBucketScale = [] {
  std::array<double, kNumBuckets> scale{};
  for (int b = 0; b < kNumBuckets; ++b) scale[size_t(b)] = double(std::exp((long double)(-b * kBucketWidth)));
  return scale;
}();

// e^d for |d| <= w (plus rounding slack): Taylor to d^8, truncation < 1e-18.
inline double expNearZero(double d) {
  constexpr double c2 = 1.0 / 2, c3 = 1.0 / 6, c4 = 1.0 / 24, c5 = 1.0 / 120, c6 = 1.0 / 720, c7 = 1.0 / 5040,
                   c8 = 1.0 / 40320;
  return 1.0 + d * (1.0 + d * (c2 + d * (c3 + d * (c4 + d * (c5 + d * (c6 + d * (c7 + d * c8)))))));
}

// e^(x + b·w) of a token of bucket b (b < kNumBuckets).
inline double expInBucket(float z, float zMax, int b) {
  return expNearZero((double(z) - double(zMax)) + double(b) * kBucketWidth);
}

// p of a token of bucket b: the one formula every step of the bucketed path uses, so
// the histogram, the min-p test and the walks agree token by token.
double tokenP(float z, float zMax, int b) { return kBucketScale[size_t(b)] * expInBucket(z, zMax, b); }

// The bucket of each token of z[0, n) (kDropped below `floor` or NaN), branch-free so it
// runs packed; the weighing pass and the rank-order scans share it, so they agree token
// by token. Clamped before the conversion: no float-to-int overflow.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void bucketSlots(
    const float* z, int n, float zMax, float floor, int* slot) {
  constexpr float kScale = float(kNumBuckets) / kNegligible, kLast = float(kNumBuckets - 1);
  for (int j = 0; j < n; ++j) {
    float d = (zMax - z[j]) * kScale;
    d = d < kLast ? d : kLast;  // NaN and +inf too
    slot[j] = z[j] >= floor ? int(d) : kDropped;
  }
}

// e[j] = e^(x + b·w) for each token of a chunk (slot kDropped: bucket 0's formula, a
// value that is never read). The same arithmetic in every clone (contraction into FMA
// is off for this file), so the result does not depend on the CPU.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void expInBuckets(
    const float* z, const int* slot, int n, float zMax, double* e) {
  static_assert((kNumBuckets & (kNumBuckets - 1)) == 0 && (kDropped & (kNumBuckets - 1)) == 0);
  for (int j = 0; j < n; ++j) e[j] = expInBucket(z[j], zMax, slot[j] & (kNumBuckets - 1));  // a mask, not a branch
}

using Masses = std::array<double, kNumBuckets + 1>;  // + the slot of dropped tokens

// The first bucket b where cum + mass[b] reaches `target` (`strict`: exceeds it);
// `cum` returns the mass of the buckets before it.
int crossing(const Masses& mass, double target, bool strict, double& cum) {
  cum = 0.0;
  int b = 0;
  for (; b < kNumBuckets - 1; ++b) {
    const double next = cum + mass[size_t(b)];
    if (strict ? target < next : target <= next) break;
    cum = next;
  }
  return b;
}

double total(const Masses& mass) {
  double sum = 0.0;
  for (int b = 0; b < kNumBuckets; ++b) sum += mass[size_t(b)];
  return sum;
}

// Every candidate's e^(x + b·w) added to its bucket: one pass over the row in chunks
// (packed slots and polynomials, then the adds); min-p drops a token with p < min_p
// (p_max is exactly 1). Four interleaved copies of the sums keep consecutive adds to
// one bucket from waiting on each other. Each token's slot is kept in `slots` [n] for
// the rank-order scans.
Masses weighRow(const float* z, int n, float zMax, float floor, float minP, uint16_t* slots) {
  std::array<Masses, 4> copies{};
  alignas(64) double e[kChunk];
  alignas(64) int slot[kChunk];
  for (int c0 = 0; c0 < n; c0 += kChunk) {
    const int len = std::min(kChunk, n - c0);
    bucketSlots(z + c0, len, zMax, floor, slot);
    expInBuckets(z + c0, slot, len, zMax, e);
    if (minP > 0.0f)
      for (int j = 0; j < len; ++j)
        if (slot[j] < kNumBuckets && kBucketScale[size_t(slot[j])] * e[j] < double(minP)) slot[j] = kDropped;
    int j = 0;
    for (; j + 4 <= len; j += 4) {
      copies[0][size_t(slot[j])] += e[j];
      copies[1][size_t(slot[j + 1])] += e[j + 1];
      copies[2][size_t(slot[j + 2])] += e[j + 2];
      copies[3][size_t(slot[j + 3])] += e[j + 3];
    }
    for (; j < len; ++j) copies[0][size_t(slot[j])] += e[j];
    for (j = 0; j < len; ++j) slots[c0 + j] = uint16_t(slot[j]);
  }
  Masses mass{};
  for (int b = 0; b < kNumBuckets; ++b)
    mass[size_t(b)] = kBucketScale[size_t(b)] *
                      ((copies[0][size_t(b)] + copies[1][size_t(b)]) + (copies[2][size_t(b)] + copies[3][size_t(b)]));
  return mass;
}

// Rank order as one integer: higher z first, then lower id (z's bits mapped to an
// unsigned order, inverted; the id in the low half).
uint64_t rankKey(float z, int id) {
  const uint32_t bits = std::bit_cast<uint32_t>(z);
  const uint32_t ordered = bits & 0x80000000u ? ~bits : bits | 0x80000000u;  // ascending with z
  return (uint64_t(~ordered) << 32) | uint32_t(id);
}

// Per block of 32 tokens, a mask of those whose slot is in first..first + span: packed
// compares, so a scan of the whole row touches only the blocks and bits that hit.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void blockMasks(
    const uint16_t* slots, int numBlocks, int first, unsigned span, uint32_t* masks) {
  for (int b = 0; b < numBlocks; ++b) {
    uint32_t m = 0;
    for (int i = 0; i < 32; ++i) m |= uint32_t(unsigned(slots[b * 32 + i] - first) <= span) << i;
    masks[b] = m;
  }
}

// The tokens of buckets first..last (min-p already applied to `slots`) in rank order,
// into s.bucketIds: one scan of the slots, then one sort of the (few) keys. Rank order
// never goes back to an earlier bucket, so each bucket's tokens are contiguous.
void rankBuckets(const float* z, const uint16_t* slots, int n, int first, int last, DrawScratch& s) {
  s.keys.clear();
  const unsigned span = unsigned(last - first);
  const int numBlocks = n / 32;
  s.masks.resize(size_t(numBlocks));
  blockMasks(slots, numBlocks, first, span, s.masks.data());
  for (int b = 0; b < numBlocks; ++b)
    for (uint32_t m = s.masks[size_t(b)]; m != 0; m &= m - 1) {
      const int i = b * 32 + std::countr_zero(m);
      s.keys.push_back(rankKey(z[i], i));
    }
  for (int i = numBlocks * 32; i < n; ++i)
    if (unsigned(slots[i] - first) <= span) s.keys.push_back(rankKey(z[i], i));
  std::sort(s.keys.begin(), s.keys.end());
  s.bucketIds.clear();
  for (uint64_t k : s.keys) s.bucketIds.push_back(int(uint32_t(k)));
}

// Positions [begin, end) of bucket b's tokens in s.bucketIds.
std::pair<size_t, size_t> segmentOf(const uint16_t* slots, const std::vector<int>& ids, int b) {
  const auto lo = std::partition_point(ids.begin(), ids.end(), [&](int id) { return slots[id] < b; });
  const auto hi = std::partition_point(lo, ids.end(), [&](int id) { return slots[id] == b; });
  return {size_t(lo - ids.begin()), size_t(hi - ids.begin())};
}

// Many candidates and no top-k: the full sort's min-p, top-p and draw, with the rank-order
// walks done bucket by bucket. `z` is the row, or the candidates' values in id order (the
// returned index is then a position in that list: ties still go to the lower id).
int bucketedDraw(const float* z, int n, float zMax, const FilterSettings& f, double u, DrawScratch& s) {
  if (s.bucketOf.size() < size_t(n)) s.bucketOf.resize(size_t(n));
  const uint16_t* slots = s.bucketOf.data();
  Masses mass = weighRow(z, n, zMax, candidateFloor(zMax, f.minP), f.minP, s.bucketOf.data());
  int cutBucket = kNumBuckets;  // top-p keeps buckets before it and s.bucketIds[.., cutEnd) of it
  int first = kNumBuckets;      // the buckets first..cutBucket are ranked
  size_t cutEnd = 0;
  double cum = 0.0;
  if (f.topP < 1.0f) {  // the smallest rank prefix whose mass reaches top_p of the kept mass
    const double target = f.topP * total(mass);
    cutBucket = crossing(mass, target, false, cum);
    const double before = cum;
    // The draw's r = u × (kept mass) >= u × before: its bucket is at least this one, so
    // one scan ranks it along with the cut bucket when they are close.
    double unused = 0.0;
    first = std::min(crossing(mass, u * before, true, unused), cutBucket);
    if (cutBucket - first > 3) first = cutBucket;
    rankBuckets(z, slots, n, first, cutBucket, s);
    const auto [begin, end] = segmentOf(slots, s.bucketIds, cutBucket);
    cutEnd = end;
    for (size_t i = begin; i < end; ++i)
      if ((cum += tokenP(z[s.bucketIds[i]], zMax, cutBucket)) >= target) {
        cutEnd = i + 1;
        break;
      }
    std::fill(mass.begin() + cutBucket, mass.end(), 0.0);
    mass[size_t(cutBucket)] = cum - before;
  }
  const double r = u * total(mass);
  const int b = std::min(crossing(mass, r, true, cum), cutBucket);  // rounding never walks past the cut
  if (b < first) rankBuckets(z, slots, n, b, b, s);
  auto [begin, end] = segmentOf(slots, s.bucketIds, b);
  if (b == cutBucket) end = cutEnd;
  for (size_t i = begin; i < end; ++i)
    if (r < (cum += tokenP(z[s.bucketIds[i]], zMax, b))) return s.bucketIds[i];
  return end > begin ? s.bucketIds[end - 1] : rowArgmax(z, n);
}

// How many tokens have z >= floor: a packed count, to choose the path before gathering.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) int countAtLeast(const float* z, int n,
                                                                                             float floor) {
  int count = 0;
  for (int i = 0; i < n; ++i) count += int(z[i] >= floor);
  return count;
}

}  // namespace

float rowMax(const float* z, int n) {
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
  if (numCandidates > vocabSize / 4) return bucketedDraw(z, vocabSize, zMax, f, u, s);  // dense: on the row
  gatherCandidates(z, vocabSize, floor, f.topK, s.gathered, s.ids);
  if (numCandidates > kMaxSortedCandidates) {  // many, but a minority: on their values, in id order
    s.values.resize(s.ids.size());
    for (size_t i = 0; i < s.ids.size(); ++i) s.values[i] = z[s.ids[i]];
    return s.ids[size_t(bucketedDraw(s.values.data(), int(s.values.size()), zMax, f, u, s))];
  }
  if (f.topK > 0 && s.ids.size() > size_t(f.topK)) {
    std::nth_element(s.ids.begin(), s.ids.begin() + (f.topK - 1), s.ids.end(), Ranked{z});
    s.ids.resize(size_t(f.topK));
  }
  return sortedDraw(z, zMax, f, u, s);
}

}  // namespace lwb
