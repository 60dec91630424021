#pragma once
// One device of a simulated deployment: its datasheet figures (peak compute, memory and
// interconnect bandwidth, memory size) and the handful of efficiency parameters that the
// cost model (cost_model.h) applies to them. Presets are JSON files shipped with the
// program (resources/hardware/NAME.json, installed beside the bundled models); each figure
// names its source in the file. A profile written by a calibration run has the same form.
#include <string>
#include <vector>

namespace lwb::sim {

struct HardwareProfile {
  std::string name;         // the preset's name as --sim-hardware takes it ("h100-sxm")
  std::string description;  // "NVIDIA H100 SXM5 80GB"
  std::string source;       // the file it was read from
  std::string kind = "gpu"; // "gpu", or "cpu" for a profile calibrated on a CPU
  bool isCpu() const { return kind == "cpu"; }
  // Datasheet figures, per device.
  double memoryGiB = 0;            // device memory
  double memoryBandwidthGBs = 0;   // GB/s (10^9 bytes)
  double bf16Tflops = 0;           // dense 16-bit tensor throughput, 10^12 FLOP/s
  double fp8Tflops = 0;            // dense FP8 throughput; 0 when the device has none
  double interconnectGBs = 0;      // one direction, per device, between tensor-parallel ranks
  double interconnectLatencyUs = 0;  // per all-reduce: launch and synchronisation
  // Efficiencies (cost_model.h gives the formula each one enters).
  double gemmEfficiency = 0;       // fraction of peak a large GEMM reaches
  double gemmHalfRows = 0;         // rows (tokens) at which a GEMM reaches half of that
  double memoryEfficiency = 0;     // fraction of the bandwidth a GEMM's weight stream reaches
  double gemmLaunchUs = 0;         // per GEMM kernel: the fixed cost of one that streams its weights
  double gemmTailUs = 0;           // per GEMM kernel: the fixed cost of one bound by compute
  double attentionEfficiency = 0;  // fraction of peak a prefill attention kernel reaches
  double kvMemoryEfficiency = 0;   // fraction of the bandwidth attention's KV reads reach
  double attentionFloorUs = 0;     // per attention kernel, however little it reads
  double allReduceEfficiency = 0;  // fraction of interconnect_gbs a ring all-reduce moves
  double stepOverheadUs = 0;       // per step: scheduling, input preparation
  double launchUsPerLayer = 0;     // per layer, kernel launches of a step run eagerly
  double graphUsPerLayer = 0;      // per layer, a decode-only step replayed as a CUDA graph
  double samplingUsPerRow = 0;     // per sampled row, at a 128k vocabulary
  std::vector<std::string> citations;  // where the datasheet figures come from
};

// The preset names, sorted, as --sim-hardware accepts them.
std::vector<std::string> hardwarePresetNames();
// The same, joined by ", " for messages; names the folder when it holds none.
std::string hardwarePresetList();
// The folder the presets are read from (resources/hardware in the build tree or install).
std::string hardwarePresetDir();
// The model shapes shipped for the simulator (resources/sim-models: folders holding a
// config.json), found as the presets are; their folder names, sorted.
std::string simModelDir();
std::vector<std::string> simModelNames();
// A preset by name, or a profile file by path (an existing path is a file). Throws
// lwb::Error naming the preset list, the file, the field and what was expected.
HardwareProfile loadHardwareProfile(const std::string& nameOrPath);
HardwareProfile parseHardwareProfile(const std::string& jsonText, const std::string& fileName);
// The profile as a file that parseHardwareProfile reads back (what calibrate writes);
// `note` goes in efficiency.note.
std::string hardwareProfileJson(const HardwareProfile& profile, const std::string& note);

}  // namespace lwb::sim
