#include "engine/sample/bucketed_draw.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

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

// A token's p is computed relative to its bucket: with x = z - z_max in bucket b,
// p = e^(-b·w) · e^(x + b·w), where |x + b·w| <= w = 37.5/1024 keeps e^(...) to a
// degree-8 polynomial (exact to ~1e-19) and e^(-b·w) comes from a table. So a bucket's
// mass is e^(-b·w) · Σ e^(x + b·w): one table product per bucket, none per token.
constexpr int kNumBuckets = 1024;
constexpr int kDropped = kNumBuckets;  // the slot of tokens below the floor, NaN, or cut by min-p
constexpr int kChunk = 512;            // tokens per pass of the packed loops below
constexpr double kBucketWidth = double(kNegligibleNats) / kNumBuckets;  // 75/2048: exact in binary
constexpr float kSlotScale = float(kNumBuckets) / kNegligibleNats;
constexpr int kNumSubBuckets = 64;  // per bucket, for the walks

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

// p of a token of bucket b: the one formula every step uses, so the histogram, the min-p
// test and the walks agree token by token.
double tokenP(float z, float zMax, int b) { return kBucketScale[size_t(b)] * expInBucket(z, zMax, b); }

// (z_max - z) in bucket units: its integer part is the bucket, its fraction the place in
// the bucket. Clamped so that NaN and +inf land in the last bucket, not past it.
inline float bucketPosition(float z, float zMax) {
  constexpr float kLast = float(kNumBuckets - 1);
  const float d = (zMax - z) * kSlotScale;
  return d < kLast ? d : kLast;
}

// The sub-bucket of a token of bucket b: monotone in z like the bucket (rounding is).
inline int subBucket(float z, float zMax, int b) {
  return std::min(kNumSubBuckets - 1, int((bucketPosition(z, zMax) - float(b)) * float(kNumSubBuckets)));
}

// For each token of a chunk: its bucket (kDropped below `floor` or NaN) into `slot` and
// `slots`, and e^(x + b·w) into `e` (slot kDropped: bucket 0's formula, a value never
// read). Branch-free so it runs packed; clamped before the float-to-int conversion. The
// same arithmetic in every clone (contraction into FMA is off for this file), so the
// result does not depend on the CPU.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void weighChunk(
    const float* __restrict z, int n, float zMax, float floor, int* __restrict slot, uint16_t* __restrict slots,
    double* __restrict e) {
  static_assert((kNumBuckets & (kNumBuckets - 1)) == 0 && (kDropped & (kNumBuckets - 1)) == 0);
  for (int j = 0; j < n; ++j) {
    const float d = bucketPosition(z[j], zMax);
    slot[j] = z[j] >= floor ? int(d) : kDropped;
  }
  for (int j = 0; j < n; ++j) slots[j] = uint16_t(slot[j]);
  for (int j = 0; j < n; ++j) e[j] = expInBucket(z[j], zMax, slot[j] & (kNumBuckets - 1));  // a mask, not a branch
}

using Masses = std::array<double, kNumBuckets + 1>;  // + the slot of dropped tokens

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
    weighChunk(z + c0, len, zMax, floor, slot, slots + c0, e);
    if (minP > 0.0f)
      for (int j = 0; j < len; ++j)
        if (slot[j] < kNumBuckets && kBucketScale[size_t(slot[j])] * e[j] < double(minP))
          slot[j] = kDropped, slots[c0 + j] = kDropped;
    int j = 0;
    for (; j + 4 <= len; j += 4) {
      copies[0][size_t(slot[j])] += e[j];
      copies[1][size_t(slot[j + 1])] += e[j + 1];
      copies[2][size_t(slot[j + 2])] += e[j + 2];
      copies[3][size_t(slot[j + 3])] += e[j + 3];
    }
    for (; j < len; ++j) copies[0][size_t(slot[j])] += e[j];
  }
  Masses mass{};
  for (int b = 0; b < kNumBuckets; ++b)
    mass[size_t(b)] = kBucketScale[size_t(b)] *
                      ((copies[0][size_t(b)] + copies[1][size_t(b)]) + (copies[2][size_t(b)] + copies[3][size_t(b)]));
  return mass;
}

double total(const Masses& mass) {
  double sum = 0.0;
  for (int b = 0; b < kNumBuckets; ++b) sum += mass[size_t(b)];
  return sum;
}

bool reaches(double target, double sum, bool strict) { return strict ? target < sum : target <= sum; }

// The first bucket b where cum + mass[b] reaches `target` (`strict`: exceeds it), or the
// last non-empty one when rounding leaves the target past every sum; `cum` returns the
// mass of the buckets before it. Never an empty bucket when any has mass.
int crossing(const Masses& mass, double target, bool strict, double& cum) {
  cum = 0.0;
  int last = 0;
  double beforeLast = 0.0;
  for (int b = 0; b < kNumBuckets; ++b) {
    if (mass[size_t(b)] == 0.0) continue;
    const double next = cum + mass[size_t(b)];
    if (reaches(target, next, strict)) return b;
    beforeLast = cum, last = b, cum = next;
  }
  cum = beforeLast;
  return last;
}

// Rank order as one integer: higher z first, then lower id (z's bits mapped to an
// unsigned order, inverted; the id in the low half).
uint64_t rankKey(float z, int id) {
  const uint32_t bits = std::bit_cast<uint32_t>(z);
  const uint32_t ordered = bits & 0x80000000u ? ~bits : bits | 0x80000000u;  // ascending with z
  return (uint64_t(~ordered) << 32) | uint32_t(id);
}

// The row as the walks see it.
struct Row {
  const float* z;
  const uint16_t* slots;  // [n]: each token's bucket, kDropped when not a candidate
  int n;
  float zMax;
};

// The rank keys of bucket b's tokens ranked no later than `lastKey` into s.keys, their
// values into s.keyValues (id order); written branch-free, sized by the masks' counts.
void collectBucket(const Row& row, int b, uint64_t lastKey, DrawScratch& s) {
  const int numBlocks = row.n / 32;
  s.masks.resize(size_t(numBlocks));
  const size_t bound = size_t(equalMasks(row.slots, numBlocks, uint16_t(b), s.masks.data()) + row.n % 32);
  s.keys.resize(bound);
  s.keyValues.resize(bound);
  size_t count = 0;
  auto add = [&](int i) {
    const uint64_t key = rankKey(row.z[i], i);
    s.keys[count] = key;
    s.keyValues[count] = row.z[i];
    count += size_t(key <= lastKey);
  };
  for (int k = 0; k < numBlocks; ++k)
    for (uint32_t m = s.masks[size_t(k)]; m != 0; m &= m - 1) add(k * 32 + std::countr_zero(m));
  for (int i = numBlocks * 32; i < row.n; ++i)
    if (row.slots[i] == b) add(i);
  s.keys.resize(count);
  s.keyValues.resize(count);
}

// Each token's sub-bucket and p, for n tokens of bucket b: packed.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void weighBucket(
    const float* __restrict z, int n, float zMax, int b, uint8_t* __restrict sub, double* __restrict p) {
  for (int j = 0; j < n; ++j) sub[j] = uint8_t(subBucket(z[j], zMax, b));
  for (int j = 0; j < n; ++j) p[j] = tokenP(z[j], zMax, b);
}

// Where a running sum walking bucket b's tokens in rank order reaches its target.
struct Stop {
  uint64_t key;  // rank key of the token (its id in the low half)
  double cum;    // the sum through it
};

// The walk in one bucket: `cum` is the mass before it; tokens after `lastKey` are out
// (top-p's cut). The bucket's tokens are weighed into sub-buckets, and only the one
// where the sum reaches `target` is sorted; when rounding leaves the target past the
// bucket's mass, the bucket's last token; kNoToken when it holds none (crossing() never
// picks such a bucket).
constexpr uint64_t kNoToken = ~uint64_t(0);
Stop walkBucket(const Row& row, int b, double cum, double target, bool strict, uint64_t lastKey, DrawScratch& s) {
  collectBucket(row, b, lastKey, s);
  if (s.keys.empty()) return {kNoToken, cum};
  s.subOf.resize(s.keys.size());
  s.keyProbs.resize(s.keys.size());
  weighBucket(s.keyValues.data(), int(s.keys.size()), row.zMax, b, s.subOf.data(), s.keyProbs.data());
  std::array<double, kNumSubBuckets> subMass{};
  for (size_t i = 0; i < s.keys.size(); ++i) subMass[s.subOf[i]] += s.keyProbs[i];
  int sub = 0, last = 0;
  double beforeLast = cum;
  for (; sub < kNumSubBuckets; ++sub) {
    if (subMass[size_t(sub)] == 0.0) continue;
    if (reaches(target, cum + subMass[size_t(sub)], strict)) break;
    beforeLast = cum, last = sub, cum += subMass[size_t(sub)];
  }
  if (sub == kNumSubBuckets) sub = last, cum = beforeLast;
  s.subKeys.clear();
  for (size_t i = 0; i < s.keys.size(); ++i)
    if (s.subOf[i] == sub) s.subKeys.push_back(s.keys[i]);
  if (!std::is_sorted(s.subKeys.begin(), s.subKeys.end())) std::sort(s.subKeys.begin(), s.subKeys.end());  // ties: id order
  for (uint64_t key : s.subKeys)
    if (reaches(target, cum += tokenP(row.z[uint32_t(key)], row.zMax, b), strict)) return {key, cum};
  return {s.subKeys.back(), cum};
}

}  // namespace

int bucketedDraw(const float* z, int n, float zMax, float floor, const FilterSettings& f, double u, DrawScratch& s) {
  if (s.bucketOf.size() < size_t(n)) s.bucketOf.resize(size_t(n));
  const Row row{z, s.bucketOf.data(), n, zMax};
  Masses mass = weighRow(z, n, zMax, floor, f.minP, s.bucketOf.data());
  int cutBucket = kNumBuckets;  // top-p keeps the buckets before it, and its tokens up to cutKey
  uint64_t cutKey = kNoToken;  // every key ranks before it
  double cum = 0.0;
  if (f.topP < 1.0f) {  // the smallest rank prefix whose mass reaches top_p of the kept mass
    const double target = f.topP * total(mass);
    cutBucket = crossing(mass, target, false, cum);
    const Stop cut = walkBucket(row, cutBucket, cum, target, false, cutKey, s);
    cutKey = cut.key;
    std::fill(mass.begin() + cutBucket, mass.end(), 0.0);
    mass[size_t(cutBucket)] = cut.cum - cum;
  }
  const double r = u * total(mass);
  const int b = crossing(mass, r, true, cum);  // never past the cut: later masses are 0
  const Stop draw = walkBucket(row, b, cum, r, true, b == cutBucket ? cutKey : kNoToken, s);
  return draw.key == kNoToken ? rowArgmax(z, n) : int(uint32_t(draw.key));
}

}  // namespace lwb
