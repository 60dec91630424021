#include "engine/sample/filtered_draw.h"

#include <algorithm>
#include <array>
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

// Ids with z >= floor. With top-k the buffer never holds much more than 2k: when it
// fills, the best k stay and the floor rises to the k-th (a threshold pass, not a sort).
void gatherCandidates(const float* z, int n, float floor, int topK, std::vector<int>& ids) {
  ids.clear();
  const size_t cap = topK > 0 ? std::max<size_t>(2 * size_t(topK), 1024) : std::numeric_limits<size_t>::max();
  for (int i = 0; i < n; ++i) {
    if (!(z[i] >= floor)) continue;
    ids.push_back(i);
    if (ids.size() < cap) continue;
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

// The (z, id) rank of the last token kept: a token is kept when it ranks at or above it.
struct Cut {
  float z = -std::numeric_limits<float>::infinity();
  int id = std::numeric_limits<int>::max();
  bool keeps(float zi, int i) const { return zi > z || (zi == z && i <= id); }
};

// The kept candidates of bucket b, in rank order.
const std::vector<int>& bucketInRankOrder(const float* z, const Buckets& buckets, int b, const Cut& cut, DrawScratch& s) {
  s.bucketIds.clear();
  for (int id : s.ids)
    if (buckets.of(z[id]) == b && cut.keeps(z[id], id)) s.bucketIds.push_back(id);
  std::sort(s.bucketIds.begin(), s.bucketIds.end(), Ranked{z});
  return s.bucketIds;
}

std::array<double, Buckets::kCount> bucketMasses(const float* z, const Buckets& buckets, const Cut& cut,
                                                 const DrawScratch& s) {
  std::array<double, Buckets::kCount> mass{};
  for (size_t i = 0; i < s.ids.size(); ++i)
    if (cut.keeps(z[s.ids[i]], s.ids[i])) mass[size_t(buckets.of(z[s.ids[i]]))] += s.probs[i];
  return mass;
}

double total(const std::array<double, Buckets::kCount>& mass) {
  double sum = 0.0;
  for (double m : mass) sum += m;
  return sum;
}

// Many candidates and no top-k: the full sort's min-p, top-p and draw, with the rank-order
// walks done bucket by bucket.
int bucketedDraw(const float* z, float zMax, const FilterSettings& f, double u, DrawScratch& s) {
  std::vector<int>& ids = s.ids;
  s.probs.resize(ids.size());
  size_t n = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    const double p = std::exp(double(z[ids[i]]) - zMax);
    if (f.minP > 0.0f && p < double(f.minP)) continue;  // p_max is exactly 1
    ids[n] = ids[i];
    s.probs[n++] = p;
  }
  ids.resize(n);
  s.probs.resize(n);
  const Buckets buckets(zMax);
  Cut cut;
  double cum = 0.0;
  if (f.topP < 1.0f) {  // the smallest rank prefix whose mass reaches top_p of the kept mass
    const auto mass = bucketMasses(z, buckets, cut, s);
    const double target = f.topP * total(mass);
    const int b = buckets.crossing(mass, target, false, cum);
    for (int id : bucketInRankOrder(z, buckets, b, cut, s)) {
      cut = {z[id], id};
      if ((cum += std::exp(double(z[id]) - zMax)) >= target) break;
    }
  }
  const auto mass = bucketMasses(z, buckets, cut, s);
  const double r = u * total(mass);
  const int b = buckets.crossing(mass, r, true, cum);
  int last = ids.empty() ? 0 : ids[0];
  for (int id : bucketInRankOrder(z, buckets, b, cut, s)) {
    last = id;
    if (r < (cum += std::exp(double(z[id]) - zMax))) return id;
  }
  return last;
}

}  // namespace

int filteredDraw(const float* z, int vocabSize, const FilterSettings& f, double u, DrawScratch& s) {
  float zMax = -std::numeric_limits<float>::infinity();
  int best = 0;
  for (int i = 0; i < vocabSize; ++i)
    if (z[i] > zMax) zMax = z[best = i];
  if (!std::isfinite(zMax)) return best;  // all -inf (or +inf): nothing to weigh
  gatherCandidates(z, vocabSize, candidateFloor(zMax, f.minP), f.topK, s.ids);
  if (f.topK > 0 && s.ids.size() > size_t(f.topK)) {
    std::nth_element(s.ids.begin(), s.ids.begin() + (f.topK - 1), s.ids.end(), Ranked{z});
    s.ids.resize(size_t(f.topK));
  }
  if (f.topK > 0 || s.ids.size() <= size_t(kMaxSortedCandidates)) return sortedDraw(z, zMax, f, u, s);
  return bucketedDraw(z, zMax, f, u, s);
}

}  // namespace lwb
