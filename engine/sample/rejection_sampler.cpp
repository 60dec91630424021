#include "engine/sample/rejection_sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lwb {

void filteredProbs(const float* z, int vocabSize, const FilterSettings& f, std::vector<double>& probs) {
  std::vector<int> ids(static_cast<size_t>(vocabSize));
  std::iota(ids.begin(), ids.end(), 0);
  std::stable_sort(ids.begin(), ids.end(), [z](int a, int b) { return z[a] > z[b]; });
  size_t keep = ids.size();
  if (f.topK > 0) keep = std::min(keep, size_t(f.topK));
  const double zMax = z[ids[0]];
  std::vector<double> w(keep);
  for (size_t i = 0; i < keep; ++i) w[i] = std::exp(double(z[ids[i]]) - zMax);
  if (f.minP > 0.0f)
    while (keep > 1 && w[keep - 1] < f.minP * w[0]) --keep;
  if (f.topP < 1.0f) {
    const double kept = std::accumulate(w.begin(), w.begin() + long(keep), 0.0);
    double cum = 0.0;
    for (size_t i = 0; i < keep; ++i) {
      cum += w[i];
      if (cum >= f.topP * kept) {
        keep = i + 1;
        break;
      }
    }
  }
  const double mass = std::accumulate(w.begin(), w.begin() + long(keep), 0.0);
  probs.assign(size_t(vocabSize), 0.0);
  for (size_t i = 0; i < keep; ++i) probs[size_t(ids[i])] = w[i] / mass;
}

int drawFromWeights(const std::vector<double>& w, double u) {
  const double r = u * std::accumulate(w.begin(), w.end(), 0.0);
  double cum = 0.0;
  int last = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] <= 0.0) continue;
    cum += w[i];
    last = int(i);
    if (r < cum) return int(i);
  }
  return last;  // r == mass up to rounding
}

std::vector<double> residualProbs(const std::vector<double>& p, const std::vector<double>* q, int draftToken) {
  std::vector<double> r(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    const double qi = q ? (*q)[i] : (int(i) == draftToken ? 1.0 : 0.0);
    r[i] = std::max(0.0, p[i] - qi);
  }
  const double mass = std::accumulate(r.begin(), r.end(), 0.0);
  if (mass <= 0.0) return p;
  for (double& x : r) x /= mass;
  return r;
}

DraftVerdict verifyDraft(const std::vector<double>& p, const std::vector<double>* q, int draftToken, double uAccept,
                         double uResidual) {
  const double pd = p[size_t(draftToken)];
  const double qd = q ? (*q)[size_t(draftToken)] : 1.0;
  // u < p/q, written without the division (q(d) > 0 for a token the draft drew).
  if (pd > 0.0 && uAccept * qd < pd) return {true, draftToken};
  return {false, drawFromWeights(residualProbs(p, q, draftToken), uResidual)};
}

}  // namespace lwb
