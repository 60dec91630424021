// Fits the simulator's per-GPU efficiencies (engine/exec/sim/cost_model.h) to published
// per-operator times of real GPUs (bench/sim/gpu-measurements.csv), evaluating exactly
// what simulate-step computes, and prints the fitted values for the presets (their
// "efficiency" objects and interconnect_latency_us). Never part of the test suite.
//   bench_sim_fit [--csv FILE]... [--hardware NAME]
// Each group of parameters is fitted on the rows of its operators only, per hardware:
//   GEMMs (qkv_proj, o_proj, mlp_gate_up, mlp_down): gemm, gemm_half_rows, memory,
//                                                    gemm_launch_us, gemm_tail_us
//   attention:                                        attention, kv_memory, attention_floor_us
//   all_reduce:                                       all_reduce, interconnect_latency_us
// The objective is the absolute relative error's median + 90th percentile (+ 0.1 × its
// mean, which breaks the ties of the two quantiles); the GEMM rows are weighted so that
// every power-of-two range of tokens weighs the same, as the profiles hold many more
// large steps than small ones and a decode step is small. Nelder–Mead minimises it from
// the preset's values and from a generic start, in a space where the fractions stay in
// (0, 1) and the times and row counts positive, each run restarted until it stops
// improving; the better of the two wins.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/exec/sim/gpu_measurements.h"
#include "engine/exec/sim/hardware_profile.h"

using namespace lwb;
using namespace lwb::sim;

namespace {

struct Param {
  const char* key;  // the JSON field
  double HardwareProfile::*field;
  bool fraction;    // in (0, 1]; otherwise a positive time or row count
  double start;     // a second starting point, besides the preset's value
};

struct Group {
  const char* name;
  std::set<std::string> ops;
  std::vector<Param> params;
  bool weighByTokens;  // GEMMs: the profiles step by 8 to 32 tokens, so most rows are large steps
};

const std::vector<Group>& groups() {
  static const std::vector<Group> g = {
      {"GEMMs",
       {"qkv_proj", "o_proj", "mlp_gate_up", "mlp_down"},
       {{"gemm", &HardwareProfile::gemmEfficiency, true, 0.75},
        {"gemm_half_rows", &HardwareProfile::gemmHalfRows, false, 100},
        {"memory", &HardwareProfile::memoryEfficiency, true, 0.88},
        {"gemm_launch_us", &HardwareProfile::gemmLaunchUs, false, 5},
        {"gemm_tail_us", &HardwareProfile::gemmTailUs, false, 5}},
       true},
      {"attention",
       {"attention"},
       {{"attention", &HardwareProfile::attentionEfficiency, true, 0.3},
        {"kv_memory", &HardwareProfile::kvMemoryEfficiency, true, 0.8},
        {"attention_floor_us", &HardwareProfile::attentionFloorUs, false, 15}},
       false},
      {"all_reduce",
       {"all_reduce"},
       {{"all_reduce", &HardwareProfile::allReduceEfficiency, true, 0.7},
        {"interconnect_latency_us", &HardwareProfile::interconnectLatencyUs, false, 20}},
       false},
  };
  return g;
}

// The search runs on unbounded coordinates: logit for fractions, log for the others.
double toSearch(const Param& p, double v) { return p.fraction ? std::log(v / (1 - std::min(v, 0.999))) : std::log(std::max(v, 1e-3)); }
double fromSearch(const Param& p, double x) { return p.fraction ? 1 / (1 + std::exp(-x)) : std::exp(x); }

using Objective = std::function<double(const std::vector<double>&)>;

// Nelder–Mead (reflection 1, expansion 2, contraction 0.5, shrink 0.5).
std::vector<double> nelderMead(const Objective& f, std::vector<double> x0, double step, int iterations) {
  const size_t n = x0.size();
  std::vector<std::vector<double>> p(n + 1, x0);
  for (size_t i = 0; i < n; ++i) p[i + 1][i] += step;
  std::vector<double> v(n + 1);
  for (size_t i = 0; i <= n; ++i) v[i] = f(p[i]);
  auto along = [&](const std::vector<double>& c, const std::vector<double>& w, double t) {
    std::vector<double> r(n);
    for (size_t j = 0; j < n; ++j) r[j] = c[j] + t * (w[j] - c[j]);
    return r;
  };
  for (int it = 0; it < iterations; ++it) {
    std::vector<size_t> order(n + 1);
    for (size_t i = 0; i <= n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<std::vector<double>> ps;
    std::vector<double> vs;
    for (size_t i : order) ps.push_back(p[i]), vs.push_back(v[i]);
    p = ps, v = vs;
    std::vector<double> c(n, 0);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) c[j] += p[i][j] / double(n);
    const std::vector<double> r = along(c, p[n], -1);
    const double fr = f(r);
    if (fr < v[0]) {
      const std::vector<double> e = along(c, p[n], -2);
      const double fe = f(e);
      p[n] = fe < fr ? e : r, v[n] = std::min(fe, fr);
    } else if (fr < v[n - 1]) {
      p[n] = r, v[n] = fr;
    } else {
      const std::vector<double> k = along(c, p[n], 0.5);
      const double fk = f(k);
      if (fk < v[n]) {
        p[n] = k, v[n] = fk;
      } else {
        for (size_t i = 1; i <= n; ++i) p[i] = along(p[0], p[i], 0.5), v[i] = f(p[i]);
      }
    }
  }
  return p[size_t(std::min_element(v.begin(), v.end()) - v.begin())];
}

// The q-quantile of the errors, each counting its weight.
double weightedQuantile(const std::vector<double>& e, const std::vector<double>& w, double q) {
  std::vector<size_t> order(e.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return e[a] < e[b]; });
  double total = 0, sum = 0;
  for (double x : w) total += x;
  for (size_t i : order)
    if ((sum += w[i]) >= q * total) return e[i];
  return e[order.back()];
}

struct Fit {
  const MeasuredSet& set;
  std::vector<size_t> rows;     // this hardware's rows of this group
  std::vector<double> weights;  // [rows.size()]: 1, or 1 / the rows in the same power-of-two range of tokens

  void weigh(bool byTokens) {
    std::map<int, int> perRange;
    for (size_t i : rows) ++perRange[std::ilogb(set.rows[i].tokens)];
    for (size_t i : rows) weights.push_back(byTokens ? 1.0 / perRange[std::ilogb(set.rows[i].tokens)] : 1.0);
  }

  std::vector<double> errors(const HardwareProfile& hw) const {
    std::vector<double> e;
    e.reserve(rows.size());
    for (size_t i : rows) e.push_back(std::abs(predictMs(set.rows[i], set.models[i], hw) - set.rows[i].measuredMs) /
                                      set.rows[i].measuredMs);
    return e;
  }
  double objective(const HardwareProfile& hw) const {
    const std::vector<double> e = errors(hw);
    double mean = 0, total = 0;
    for (size_t i = 0; i < e.size(); ++i) mean += e[i] * weights[i], total += weights[i];
    return weightedQuantile(e, weights, 0.5) + weightedQuantile(e, weights, 0.9) + 0.1 * mean / total;
  }
};

HardwareProfile withParams(HardwareProfile hw, const std::vector<Param>& params, const std::vector<double>& x) {
  for (size_t i = 0; i < params.size(); ++i) hw.*params[i].field = fromSearch(params[i], x[i]);
  return hw;
}

// Nelder–Mead from x, restarted from its result until that stops improving.
std::vector<double> minimise(const Objective& f, std::vector<double> x) {
  double best = f(x);
  for (int restart = 0; restart < 8; ++restart) {
    const std::vector<double> y = nelderMead(f, x, restart == 0 ? 0.5 : 0.2, 300);
    const double fy = f(y);
    if (fy > best - 1e-5) break;
    x = y, best = fy;
  }
  return x;
}

void fitGroup(HardwareProfile& hw, const Group& g, const Fit& fit) {
  const ErrorStats before = errorStats(fit.errors(hw));
  std::vector<double> fromPreset, fromStart;
  for (const Param& p : g.params) {
    fromPreset.push_back(toSearch(p, hw.*p.field));
    fromStart.push_back(toSearch(p, p.start));
  }
  const Objective f = [&](const std::vector<double>& y) { return fit.objective(withParams(hw, g.params, y)); };
  const std::vector<double> a = minimise(f, fromPreset), b = minimise(f, fromStart);
  hw = withParams(hw, g.params, f(a) <= f(b) ? a : b);
  const ErrorStats after = errorStats(fit.errors(hw));
  std::printf("  %-10s %6zu rows: median %5.1f %% -> %5.1f %%, p90 %5.1f %% -> %5.1f %%;", g.name, after.n,
              100 * before.median, 100 * after.median, 100 * before.p90, 100 * after.p90);
  for (const Param& p : g.params) std::printf(" %s %.4g", p.key, hw.*p.field);
  std::printf("\n");
}

int run(int argc, char** argv) {
  std::vector<std::string> csvPaths;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) {
      csvPaths.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--hardware") && i + 1 < argc) {
      only = argv[++i];
    } else {
      throw Error(std::string("unknown argument '") + argv[i] + "'; usage: bench_sim_fit [--csv FILE]... [--hardware NAME]");
    }
  }
  if (csvPaths.empty()) csvPaths.push_back(LWB_SOURCE_DIR "/bench/sim/gpu-measurements.csv");
  const MeasuredSet set = loadMeasuredSet(csvPaths, LWB_SOURCE_DIR "/resources/sim-models");
  std::set<std::string> hardware;
  for (const GpuMeasurement& r : set.rows) hardware.insert(r.hardware);
  for (const std::string& name : hardware) {
    if (!only.empty() && name != only) continue;
    HardwareProfile hw = loadHardwareProfile(name);
    std::printf("%s (from %s):\n", name.c_str(), hw.source.c_str());
    for (const Group& g : groups()) {
      Fit fit{set, {}};
      for (size_t i = 0; i < set.rows.size(); ++i)
        if (set.rows[i].hardware == name && g.ops.count(set.rows[i].op)) fit.rows.push_back(i);
      if (fit.rows.empty()) {
        std::printf("  %-10s no rows: kept\n", g.name);
        continue;
      }
      fit.weigh(g.weighByTokens);
      fitGroup(hw, g, fit);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_sim_fit: %s\n", e.what());
    return 1;
  }
}
