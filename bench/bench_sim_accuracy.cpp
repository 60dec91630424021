// The simulator's cost model against published per-operator times of real GPUs: every
// row of bench/sim/gpu-measurements.csv (Vidur's H100 and A100 profiles, converted by
// tools/sim/extract-vidur.py) predicted with the hardware presets and with the datasheet
// roofline (the same formulas with every efficiency 1 and no fixed costs), and the
// absolute relative error's median and 90th percentile per hardware and operator. The
// issue's bound: median ≤ 8 %, 90th percentile ≤ 20 % over all rows. Never part of the
// test suite.
//   bench_sim_accuracy [--csv FILE]... [--profile FILE]... [--by-model]
// --csv replaces the default file (several may be given); --profile prices the rows of a
// profile's `name` with that file instead of the preset (a candidate from bench_sim_fit);
// --by-model adds a table per model.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/exec/sim/gpu_measurements.h"
#include "engine/exec/sim/hardware_profile.h"

using namespace lwb;
using namespace lwb::sim;

namespace {

struct Args {
  std::vector<std::string> csvPaths;
  std::vector<std::string> profilePaths;
  bool byModel = false;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const bool hasValue = i + 1 < argc;
    if (!std::strcmp(argv[i], "--csv") && hasValue) {
      a.csvPaths.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--profile") && hasValue) {
      a.profilePaths.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--by-model")) {
      a.byModel = true;
    } else {
      throw Error(std::string("unknown argument '") + argv[i] +
                  "'; usage: bench_sim_accuracy [--csv FILE]... [--profile FILE]... [--by-model]");
    }
  }
  if (a.csvPaths.empty()) a.csvPaths.push_back(LWB_SOURCE_DIR "/bench/sim/gpu-measurements.csv");
  return a;
}

// The relative errors of one group of rows, with the presets and with the roofline.
struct Errors {
  std::vector<double> fitted, roofline;
};

void printRow(const std::string& hardware, const std::string& what, const Errors& e) {
  const ErrorStats f = errorStats(e.fitted), r = errorStats(e.roofline);
  std::printf("  %-10s %-13s %6zu  %6.1f %% %6.1f %%   %6.1f %% %6.1f %%\n", hardware.c_str(), what.c_str(), f.n,
              100 * f.median, 100 * f.p90, 100 * r.median, 100 * r.p90);
}

void printHeader(const char* title) {
  std::printf("\n%s\n", title);
  std::printf("  %-10s %-13s %6s  %-19s  %-19s\n", "", "", "", "presets (fitted)", "datasheet roofline");
  std::printf("  %-10s %-13s %6s  %8s %8s   %8s %8s\n", "hardware", "op", "n", "median", "p90", "median", "p90");
}

int run(const Args& args) {
  const MeasuredSet set = loadMeasuredSet(args.csvPaths, LWB_SOURCE_DIR "/resources/sim-models");
  std::map<std::string, HardwareProfile> profiles;
  for (const std::string& path : args.profilePaths) {
    const HardwareProfile p = loadHardwareProfile(path);
    profiles[p.name] = p;
  }
  // [hardware][op], with "all" for the totals; [model] for --by-model.
  std::map<std::string, std::map<std::string, Errors>> byOp;
  std::map<std::string, std::map<std::string, Errors>> byModel;
  Errors all;
  for (size_t i = 0; i < set.rows.size(); ++i) {
    const GpuMeasurement& row = set.rows[i];
    if (!profiles.count(row.hardware)) profiles[row.hardware] = loadHardwareProfile(row.hardware);
    const HardwareProfile& hw = profiles[row.hardware];
    const double fitted = std::abs(predictMs(row, set.models[i], hw) - row.measuredMs) / row.measuredMs;
    const double roof = std::abs(predictMs(row, set.models[i], datasheetRoofline(hw)) - row.measuredMs) / row.measuredMs;
    for (Errors* e : {&byOp[row.hardware][row.op], &byOp[row.hardware]["all"], &byOp["all"][row.op], &all,
                      &byModel[row.hardware][row.model]}) {
      e->fitted.push_back(fitted);
      e->roofline.push_back(roof);
    }
  }
  std::printf("Simulator against published GPU measurements: |predicted - measured| / measured\n");
  for (const std::string& path : args.csvPaths) std::printf("  %s\n", path.c_str());
  for (const auto& [hardware, profile] : profiles) std::printf("  %s: %s\n", hardware.c_str(), profile.source.c_str());
  printHeader("Per hardware and operator");
  for (const auto& [hardware, ops] : byOp) {
    if (hardware == "all") continue;
    for (const auto& [op, e] : ops)
      if (op != "all") printRow(hardware, op, e);
    printRow(hardware, "all", ops.at("all"));
  }
  for (const auto& [op, e] : byOp["all"]) printRow("all", op, e);
  printRow("all", "all", all);
  if (args.byModel) {
    printHeader("Per hardware and model");
    for (const auto& [hardware, models] : byModel)
      for (const auto& [model, e] : models) printRow(hardware, model, e);
  }
  const ErrorStats total = errorStats(all.fitted);
  std::printf("\nall rows: median %.1f %% (bound 8 %%), p90 %.1f %% (bound 20 %%): %s\n", 100 * total.median,
              100 * total.p90, total.median <= 0.08 && total.p90 <= 0.20 ? "within" : "OUTSIDE");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parseArgs(argc, argv));
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_sim_accuracy: %s\n", e.what());
    return 1;
  }
}
