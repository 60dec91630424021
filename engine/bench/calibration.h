#pragma once
// The measurements behind `llm-workbench calibrate`: a grid of real engine steps, each
// with its shape (every sequence's new tokens and cached context) and its duration, for
// the simulator's profile fit (engine/exec/sim/profile_fit.h).
//   prefill: one request of R prompt tokens, R over powers of two up to
//            max_num_batched_tokens (and max_model_len);
//   decode:  B requests of C prompt tokens arriving together, then `decodeSteps` steps
//            of B rows at contexts C…, over batch sizes B up to max_num_seqs and contexts
//            C up to half of max_model_len. Their first steps (chunked prefills of B
//            prompts) are mixed shapes, kept too.
//   prefix:  a prompt sharing a cached prefix of C tokens (each context), computing its
//            own R rows (each of prefixRows) against it.
// Prefix caching is off but for the prefix cells, so every other prompt token is
// computed; a warm-up request runs first.
#include <functional>
#include <string>
#include <vector>

#include "engine/config/device_info.h"
#include "engine/exec/sim/profile_fit.h"

namespace lwb {

class Engine;

struct CalibrationGrid {
  std::vector<int> prefillRows;
  std::vector<int> decodeBatches;
  std::vector<int> contexts;
  std::vector<int> prefixRows;  // prompt rows computed over a cached prefix of each context
  int decodeSteps = 32;
  int repeats = 2;  // of each prefill size
};

// The default grid for the engine's knobs in force; `quick` halves it (fewer points
// along each axis) for tests and a first look.
CalibrationGrid defaultCalibrationGrid(const Engine& engine, bool quick);

// done of total cells, and what runs now ("decode B=8 C=256").
using CalibrationProgress = std::function<void(int done, int total, const std::string& what)>;

// Runs the grid on `engine` (which must have no requests) and returns every step.
// Throws lwb::Error when a request fails or the engine is simulated.
std::vector<sim::StepSample> measureCalibrationSteps(Engine& engine, const CalibrationGrid& grid,
                                                     const CalibrationProgress& progress = {});

// Where a fit starts: for a CPU, rates of a few-core machine and the machine's memory;
// for a GPU, the preset whose description names the device (else H100 SXM's figures
// with the device's memory).
sim::HardwareProfile startingProfile(const DeviceInfo& device);

struct Calibration {
  sim::HardwareProfile profile;   // fitted; name and description set by the caller
  sim::ErrorStats before, after;  // over the measured steps: the starting and the fitted profile
  sim::SimModel model;            // the engine's model as the simulator prices it
  std::vector<sim::StepSample> samples;  // the measured steps
};
// The measured steps as CSV: rows, sequences, decode rows, mean context, measured and
// predicted (with `profile`) milliseconds.
std::string calibrationStepsCsv(const Calibration& c);
// Measures the grid on `engine` and fits: a CPU's rates and overheads
// (cpuFitParameters), a GPU's efficiencies (gpuFitParameters).
Calibration calibrateEngine(Engine& engine, const CalibrationGrid& grid, const CalibrationProgress& progress = {});

}  // namespace lwb
