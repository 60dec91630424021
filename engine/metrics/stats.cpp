#include "engine/metrics/stats.h"

#include <algorithm>
#include <cmath>

namespace lwb {

// numpy "linear": rank h = (n − 1)·q/100, value = x[floor h] + (h − floor h)·(x[ceil h] − x[floor h]).
double percentileSorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  q = std::clamp(q, 0.0, 100.0);
  const double h = static_cast<double>(sorted.size() - 1) * q / 100.0;
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return percentileSorted(values, q);
}

Summary summarize(std::vector<double> values) {
  Summary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.count);
  double sq = 0;
  for (double v : values) sq += (v - s.mean) * (v - s.mean);
  s.std = std::sqrt(sq / static_cast<double>(s.count));
  s.min = values.front();
  s.max = values.back();
  s.median = percentileSorted(values, 50);
  s.p90 = percentileSorted(values, 90);
  s.p99 = percentileSorted(values, 99);
  return s;
}

}  // namespace lwb
