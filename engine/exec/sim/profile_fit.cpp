#include "engine/exec/sim/profile_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "engine/common/error.h"

namespace lwb::sim {

namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const size_t i = size_t(pos);
  const double f = pos - double(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

// The parameters live in log space, clamped to their bounds, so every step of the search
// is a valid profile and a factor of 2 is the same distance at any scale.
struct Space {
  const std::vector<FitParameter>& params;
  HardwareProfile base;
  HardwareProfile at(const std::vector<double>& x) const {
    HardwareProfile p = base;
    for (size_t i = 0; i < params.size(); ++i)
      p.*params[i].field = std::clamp(std::exp(x[i]), params[i].lo, params[i].hi);
    return p;
  }
};

double loss(const SimModel& m, const HardwareProfile& hw, const std::vector<StepSample>& samples) {
  double sum = 0;
  for (const StepSample& s : samples) sum += std::abs(std::log(predictStep(m, hw, s.shape).total() * 1e-3 / s.seconds));
  return sum / double(samples.size());
}

// Nelder–Mead (reflection 1, expansion 2, contraction ½, shrink ½) from `x0` with steps of
// `scale` along each axis.
std::vector<double> nelderMead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                               double scale, int iterations) {
  const size_t n = x0.size();
  std::vector<std::vector<double>> pts(n + 1, x0);
  for (size_t i = 0; i < n; ++i) pts[i + 1][i] += scale;
  std::vector<double> val(n + 1);
  for (size_t i = 0; i <= n; ++i) val[i] = f(pts[i]);
  std::vector<size_t> order(n + 1);
  auto combine = [&](const std::vector<double>& a, const std::vector<double>& b, double t) {
    std::vector<double> r(n);
    for (size_t i = 0; i < n; ++i) r[i] = a[i] + t * (b[i] - a[i]);
    return r;
  };
  for (int it = 0; it < iterations; ++it) {
    for (size_t i = 0; i <= n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return val[a] < val[b]; });
    const size_t best = order[0], worst = order[n], second = order[n - 1];
    std::vector<double> centroid(n, 0.0);
    for (size_t k = 0; k < n; ++k)
      for (size_t i = 0; i < n; ++i) centroid[i] += pts[order[k]][i] / double(n);
    const std::vector<double> reflected = combine(centroid, pts[worst], -1.0);
    const double fr = f(reflected);
    if (fr < val[best]) {
      const std::vector<double> expanded = combine(centroid, pts[worst], -2.0);
      const double fe = f(expanded);
      if (fe < fr) pts[worst] = expanded, val[worst] = fe;
      else pts[worst] = reflected, val[worst] = fr;
    } else if (fr < val[second]) {
      pts[worst] = reflected, val[worst] = fr;
    } else {
      const std::vector<double> contracted = combine(centroid, pts[worst], 0.5);
      const double fc = f(contracted);
      if (fc < val[worst]) {
        pts[worst] = contracted, val[worst] = fc;
      } else {
        for (size_t i = 0; i <= n; ++i)
          if (i != best) pts[i] = combine(pts[best], pts[i], 0.5), val[i] = f(pts[i]);
      }
    }
  }
  return pts[size_t(std::min_element(val.begin(), val.end()) - val.begin())];
}

// Coordinate descent: a golden-section search along each axis in turn (within ±`span`
// of the point and the bounds), rounds until a round gains nothing. It walks along the
// flat directions and the kinks where Nelder–Mead's simplex collapses.
double coordinateDescent(const std::function<double(const std::vector<double>&)>& f, std::vector<double>& x,
                         const std::vector<double>& lo, const std::vector<double>& hi, double span) {
  constexpr double kGolden = 0.6180339887498949;
  double fx = f(x);
  for (int round = 0; round < 12; ++round) {
    const double before = fx;
    for (size_t k = 0; k < x.size(); ++k) {
      double a = std::max(lo[k], x[k] - span), b = std::min(hi[k], x[k] + span);
      auto at = [&](double v) {
        std::vector<double> y = x;
        y[k] = v;
        return f(y);
      };
      double c = b - kGolden * (b - a), d = a + kGolden * (b - a);
      double fc = at(c), fd = at(d);
      for (int it = 0; it < 24; ++it) {
        if (fc < fd) b = d, d = c, fd = fc, c = b - kGolden * (b - a), fc = at(c);
        else a = c, c = d, fc = fd, d = a + kGolden * (b - a), fd = at(d);
      }
      const double v = fc < fd ? c : d, fv = std::min(fc, fd);
      if (fv < fx) x[k] = v, fx = fv;
    }
    if (before - fx < 1e-6) break;
  }
  return fx;
}

}  // namespace

std::vector<FitParameter> cpuFitParameters() {
  return {{"bf16_tflops", &HardwareProfile::bf16Tflops, 1e-4, 100},
          {"memory_bandwidth_gbs", &HardwareProfile::memoryBandwidthGBs, 1, 10000},
          {"gemm_half_rows", &HardwareProfile::gemmHalfRows, 0.01, 4096},
          {"gemm_launch_us", &HardwareProfile::gemmLaunchUs, 0.01, 1e4},
          {"attention", &HardwareProfile::attentionEfficiency, 1e-4, 1},
          {"kv_memory", &HardwareProfile::kvMemoryEfficiency, 1e-3, 1},
          {"attention_floor_us", &HardwareProfile::attentionFloorUs, 0.01, 1e4},
          {"step_overhead_us", &HardwareProfile::stepOverheadUs, 0.1, 1e5},
          {"launch_us_per_layer", &HardwareProfile::launchUsPerLayer, 0.01, 1e4},
          {"graph_us_per_layer", &HardwareProfile::graphUsPerLayer, 0.01, 1e4},
          {"sampling_us_per_row", &HardwareProfile::samplingUsPerRow, 0.01, 1e4}};
}

std::vector<FitParameter> gpuFitParameters() {
  return {{"gemm", &HardwareProfile::gemmEfficiency, 0.05, 1},
          {"gemm_half_rows", &HardwareProfile::gemmHalfRows, 0.5, 4096},
          {"memory", &HardwareProfile::memoryEfficiency, 0.05, 1},
          {"gemm_launch_us", &HardwareProfile::gemmLaunchUs, 0.1, 1e3},
          {"attention", &HardwareProfile::attentionEfficiency, 0.01, 1},
          {"kv_memory", &HardwareProfile::kvMemoryEfficiency, 0.05, 1},
          {"attention_floor_us", &HardwareProfile::attentionFloorUs, 0.1, 1e3},
          {"step_overhead_us", &HardwareProfile::stepOverheadUs, 1, 1e5},
          {"launch_us_per_layer", &HardwareProfile::launchUsPerLayer, 0.1, 1e4},
          {"graph_us_per_layer", &HardwareProfile::graphUsPerLayer, 0.1, 1e4},
          {"sampling_us_per_row", &HardwareProfile::samplingUsPerRow, 0.01, 1e4}};
}

ErrorStats stepErrors(const SimModel& m, const HardwareProfile& hw, const std::vector<StepSample>& samples) {
  std::vector<double> errors;
  errors.reserve(samples.size());
  for (const StepSample& s : samples)
    errors.push_back(std::abs(predictStep(m, hw, s.shape).total() * 1e-3 / s.seconds - 1));
  return {int(errors.size()), quantile(errors, 0.5), quantile(errors, 0.9)};
}

HardwareProfile fitProfile(const SimModel& m, const HardwareProfile& start, const std::vector<FitParameter>& params,
                           const std::vector<StepSample>& samples) {
  check(!samples.empty(), "calibration: no measured steps to fit");
  for (const StepSample& s : samples) check(s.seconds > 0, "calibration: a measured step took no time");
  const Space space{params, start};
  auto f = [&](const std::vector<double>& x) { return loss(m, space.at(x), samples); };
  std::vector<double> x(params.size());
  for (size_t i = 0; i < params.size(); ++i)
    x[i] = std::log(std::clamp(start.*params[i].field, params[i].lo, params[i].hi));
  // Nelder–Mead stalls on the kinks of the roofline's max() and on the bounds: it starts
  // from the given point and from the best of a few thousand points drawn across the whole
  // box (deterministically), each restarted with a shrinking simplex.
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto uniform01 = [&] {  // xorshift64*
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return double((state * 0x2545F4914F6CDD1Dull) >> 11) / double(1ull << 53);
  };
  std::vector<std::pair<double, std::vector<double>>> starts{{f(x), x}};
  for (int i = 0; i < 3000; ++i) {
    std::vector<double> y(params.size());
    for (size_t k = 0; k < params.size(); ++k)
      y[k] = std::log(params[k].lo) + uniform01() * (std::log(params[k].hi) - std::log(params[k].lo));
    starts.push_back({f(y), y});
  }
  std::partial_sort(starts.begin() + 1, starts.begin() + 5, starts.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
  starts.resize(5);
  std::vector<double> bestX = x;
  double best = starts[0].first;
  std::vector<double> lo(params.size()), hi(params.size());
  for (size_t k = 0; k < params.size(); ++k) lo[k] = std::log(params[k].lo), hi[k] = std::log(params[k].hi);
  auto clampToBox = [&](std::vector<double> z) {
    for (size_t k = 0; k < z.size(); ++k) z[k] = std::clamp(z[k], lo[k], hi[k]);
    return z;
  };
  for (auto& [fy, y] : starts) {
    for (double scale : {1.0, 0.25}) {
      const std::vector<double> z = clampToBox(nelderMead(f, y, scale, 300));
      if (const double fz = f(z); fz < fy) fy = fz, y = z;
    }
    if (fy <= best) best = fy, bestX = y;
  }
  // The best start polished: coordinate descent, then a last small simplex.
  coordinateDescent(f, bestX, lo, hi, 3.0);
  const std::vector<double> z = clampToBox(nelderMead(f, bestX, 0.1, 300));
  if (f(z) < f(bestX)) bestX = z;
  return space.at(bestX);
}

}  // namespace lwb::sim
