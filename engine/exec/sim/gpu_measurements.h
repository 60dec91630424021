#pragma once
// Measured per-operator times of real GPUs, as rows of bench/sim/gpu-measurements.csv
// (written by tools/sim/extract-vidur.py from the Vidur simulator's published profiles),
// and the cost model's prediction of each: what the presets' efficiencies are fitted to
// (build/bench/bench_sim_fit) and checked against (build/bench/bench_sim_accuracy).
//
// The file: lines starting with '#' are comments; then a header
//   hardware,model,tp,op,seqs,tokens,context,measured_ms
// and one row per measurement: a hardware preset's name, a model folder (holding its
// config.json), the tensor-parallel size, an operator by simulate-step's name, the step
// (`seqs` sequences of tokens / seqs new tokens each, over `context` cached tokens each)
// and that operator's time for the step in milliseconds, as simulate-step reports it.
#include <string>
#include <vector>

#include "engine/exec/sim/cost_model.h"
#include "engine/exec/sim/hardware_profile.h"

namespace lwb::sim {

struct GpuMeasurement {
  std::string hardware;  // "h100-sxm"
  std::string model;     // "llama-2-7b"
  int tensorParallelSize = 1;
  std::string op;        // one of opNames()
  int seqs = 1;
  int tokens = 1;
  int context = 0;
  double measuredMs = 0;
  StepShape step() const;
};

// Throws lwb::Error naming the file, the line and what was expected.
std::vector<GpuMeasurement> readGpuMeasurements(const std::string& path);

// The cost model's time for the row's operator and step, in milliseconds.
double predictMs(const GpuMeasurement& row, const SimModel& model, const HardwareProfile& hw);

// The rows with their models loaded once: config.json from modelDir/<model>/, sharded
// for each row's tensor-parallel size (bf16 weights and KV cache, as the profiles ran).
struct MeasuredSet {
  std::vector<GpuMeasurement> rows;
  std::vector<SimModel> models;  // [rows.size()]
};
MeasuredSet loadMeasuredSet(const std::vector<std::string>& csvPaths, const std::string& modelDir);

// |predicted − measured| / measured over a set of rows.
struct ErrorStats {
  size_t n = 0;
  double median = 0;
  double p90 = 0;
};
ErrorStats errorStats(std::vector<double> relativeErrors);

// The same profile with every efficiency 1 and every fixed cost 0: the datasheet roofline.
HardwareProfile datasheetRoofline(HardwareProfile hw);

}  // namespace lwb::sim
