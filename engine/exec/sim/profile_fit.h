#pragma once
// Fitting a hardware profile's parameters to measured steps: what `llm-workbench
// calibrate` does after timing the real executor. The cost model stays the documented
// formula of cost_model.h; calibration only chooses its handful of parameters, by
// Nelder–Mead on the mean absolute log error of the predicted step times (a relative
// error, so a 100 µs step weighs as much as a 100 ms one).
#include <string>
#include <vector>

#include "engine/exec/sim/cost_model.h"
#include "engine/exec/sim/hardware_profile.h"

namespace lwb::sim {

// One measured step: its shape and how long it took (seconds).
struct StepSample {
  StepShape shape;
  double seconds = 0;
};

// A profile field the fit may move, within [lo, hi].
struct FitParameter {
  std::string name;  // the profile file's key
  double HardwareProfile::*field;
  double lo, hi;
};

// A CPU: the effective compute and streaming rates themselves (a small model's weights sit
// in the caches, so no datasheet figure applies), the GEMM's ramp, attention's KV reads
// and the fixed costs per kernel and step.
std::vector<FitParameter> cpuFitParameters();
// A GPU: the efficiencies against its datasheet figures, and the overheads.
std::vector<FitParameter> gpuFitParameters();

struct ErrorStats {
  int n = 0;
  double median = 0, p90 = 0;  // of |predicted / measured − 1|
};
ErrorStats stepErrors(const SimModel& model, const HardwareProfile& hw, const std::vector<StepSample>& samples);

// `start` with `params` fitted to `samples` (several restarts; the best is kept).
HardwareProfile fitProfile(const SimModel& model, const HardwareProfile& start, const std::vector<FitParameter>& params,
                           const std::vector<StepSample>& samples);

}  // namespace lwb::sim
