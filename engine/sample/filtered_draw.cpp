#include "engine/sample/filtered_draw.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

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

// Ids with z >= floor; blocks without one are skipped after one packed compare. With top-k the buffer never holds much more than 2k: when it
// fills, the best k stay and the floor rises to the k-th (a threshold pass, not a sort).
void gatherCandidates(const float* z, int n, float floor, int topK, std::vector<int>& ids) {
  ids.clear();
  const size_t cap = topK > 0 ? std::max<size_t>(2 * size_t(topK), 1024) : std::numeric_limits<size_t>::max();
  for (int block = 0; block < n; block += kLanes) {
    const int end = std::min(n, block + kLanes);
    int hits = 0;
    for (int i = block; i < end; ++i) hits |= int(z[i] >= floor);
    if (!hits) continue;
    size_t count = ids.size();
    ids.resize(count + size_t(end - block));
    for (int i = block; i < end; ++i) {  // branch-free: a flat row keeps most of them
      ids[count] = i;
      count += size_t(z[i] >= floor);
    }
    ids.resize(count);
    if (count < cap) continue;
    std::nth_element(ids.begin(), ids.begin() + (topK - 1), ids.end(), Ranked{z});
    ids.resize(size_t(topK));
    floor = z[ids.back()];
  }
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
class Buckets {
 public:
  static constexpr int kCount = 1024;
  explicit Buckets(float zMax) : zMax_(zMax) {}
  int of(float z) const { return std::min(kCount - 1, int((zMax_ - z) * (float(kCount) / kNegligible))); }

  // The first bucket b where cum + mass[b] reaches `target` (`strict`: exceeds it);
  // `cum` returns the mass of the buckets before it.
  int crossing(const std::array<double, kCount>& mass, double target, bool strict, double& cum) const {
    cum = 0.0;
    int b = 0;
    for (; b < kCount - 1; ++b) {
      const double next = cum + mass[size_t(b)];
      if (strict ? target < next : target <= next) break;
      cum = next;
    }
    return b;
  }

 private:
  float zMax_;
};

using Masses = std::array<double, Buckets::kCount>;

double total(const Masses& mass) {
  double sum = 0.0;
  for (double m : mass) sum += m;
  return sum;
}

// p = exp(z - z_max) and the bucket of every candidate (kCount: dropped by min-p), and
// each bucket's mass.
Masses weigh(const float* z, float zMax, float minP, const Buckets& buckets, DrawScratch& s) {
  const size_t n = s.ids.size();
  s.probs.resize(n);
  s.buckets.resize(n);
  for (size_t i = 0; i < n; ++i) s.probs[i] = double(z[s.ids[i]]) - zMax;
  expNonPositiveInPlace(s.probs.data(), n);
  Masses mass{};
  for (size_t i = 0; i < n; ++i) {
    const bool dropped = minP > 0.0f && s.probs[i] < double(minP);  // p_max is exactly 1
    s.buckets[i] = uint16_t(dropped ? Buckets::kCount : buckets.of(z[s.ids[i]]));
    if (!dropped) mass[s.buckets[i]] += s.probs[i];
  }
  return mass;
}

// The candidates of bucket b, in rank order.
const std::vector<int>& bucketInRankOrder(const float* z, int b, DrawScratch& s) {
  s.bucketIds.clear();
  for (size_t i = 0; i < s.ids.size(); ++i)
    if (s.buckets[i] == b) s.bucketIds.push_back(s.ids[i]);
  std::sort(s.bucketIds.begin(), s.bucketIds.end(), Ranked{z});
  return s.bucketIds;
}

// Many candidates and no top-k: the full sort's min-p, top-p and draw, with the rank-order
// walks done bucket by bucket.
int bucketedDraw(const float* z, float zMax, const FilterSettings& f, double u, DrawScratch& s) {
  const Buckets buckets(zMax);
  Masses mass = weigh(z, zMax, f.minP, buckets, s);
  int cutBucket = Buckets::kCount;  // top-p keeps buckets before it and cutPrefix of it
  size_t cutPrefix = 0;
  double cum = 0.0;
  if (f.topP < 1.0f) {  // the smallest rank prefix whose mass reaches top_p of the kept mass
    const double target = f.topP * total(mass);
    cutBucket = buckets.crossing(mass, target, false, cum);
    const double before = cum;
    for (int id : bucketInRankOrder(z, cutBucket, s)) {
      ++cutPrefix;
      if ((cum += expNonPositive(double(z[id]) - zMax)) >= target) break;
    }
    std::fill(mass.begin() + cutBucket, mass.end(), 0.0);
    mass[size_t(cutBucket)] = cum - before;
  }
  const double r = u * total(mass);
  const int b = std::min(buckets.crossing(mass, r, true, cum), cutBucket);  // rounding never walks past the cut
  const std::vector<int>& ranked = b == cutBucket ? s.bucketIds : bucketInRankOrder(z, b, s);
  const size_t end = b == cutBucket ? cutPrefix : ranked.size();
  for (size_t i = 0; i < end; ++i)
    if (r < (cum += expNonPositive(double(z[ranked[i]]) - zMax))) return ranked[i];
  return end > 0 ? ranked[end - 1] : s.ids[0];
}

}  // namespace

namespace {

inline double expKernel(double x) {
  constexpr double kShift = 0x1.8p52, kLog2e = 1.4426950408889634074;
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;  // hi has trailing zeros
  const double t = x * kLog2e + kShift;  // k = round(x / ln2) lands in the low bits of t
  const double kd = t - kShift;
  const double r = (x - kd * kLn2Hi) - kd * kLn2Lo;  // |r| <= ln2 / 2
  double p = 1.0 / 6227020800.0;                      // 1/13!
  for (double f : {479001600.0, 39916800.0, 3628800.0, 362880.0, 40320.0, 5040.0, 720.0, 120.0, 24.0, 6.0, 2.0, 1.0, 1.0})
    p = p * r + 1.0 / f;
  const int64_t k = std::bit_cast<int64_t>(t) - std::bit_cast<int64_t>(kShift);
  return p * std::bit_cast<double>(uint64_t(k + 1023) << 52);
}

}  // namespace

double expNonPositive(double x) { return expKernel(x); }

// The same arithmetic in every clone (no contraction into FMA under -std=c++20), so the
// result does not depend on the CPU; AVX2 just does four at a time.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void expNonPositiveInPlace(double* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = expKernel(x[i]);
}

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
  gatherCandidates(z, vocabSize, candidateFloor(zMax, f.minP), f.topK, s.ids);
  if (f.topK > 0 && s.ids.size() > size_t(f.topK)) {
    std::nth_element(s.ids.begin(), s.ids.begin() + (f.topK - 1), s.ids.end(), Ranked{z});
    s.ids.resize(size_t(f.topK));
  }
  if (f.topK > 0 || s.ids.size() <= size_t(kMaxSortedCandidates)) return sortedDraw(z, zMax, f, u, s);
  return bucketedDraw(z, zMax, f, u, s);
}

}  // namespace lwb
