// `llm-workbench calibrate`: times the real executor over a grid of step shapes
// (engine/bench/calibration.h) and fits a hardware profile that `--backend sim
// --sim-hardware FILE` reads (engine/exec/sim/profile_fit.h). On a CPU it fits the
// effective compute and streaming rates; on a GPU the efficiencies against the datasheet
// figures of the preset that names the device (or H100 SXM's when none does).
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>

#include "app/cli/args.h"
#include "app/commands.h"
#include "engine/bench/calibration.h"
#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/exec/sim/hardware_profile.h"
#include "engine/metrics/export.h"
#include "engine/model/model.h"

namespace lwb::app {

namespace {

std::string flagOf(std::string_view knobName) { return "--" + findKnob(knobName)->flag; }

ArgParser makeParser() {
  const std::string mnbt(knob::kMaxNumBatchedTokens), mns(knob::kMaxNumSeqs), mml(knob::kMaxModelLen);
  ArgParser p("calibrate",
              "llm-workbench calibrate [" + flagOf(knob::kBackend) + " cpu|cuda] [--model DIR] [engine knobs] --out FILE",
              "Times the real engine over a grid of step shapes (prefills of 1 up to " + mnbt +
                  " rows;\ndecode batches up to " + mns + " at contexts up to half of " + mml +
                  ") and fits the\nsimulator's cost model to them. The profile it writes is read by " +
                  flagOf(knob::kBackend) + " sim\n" + flagOf(knob::kSimHardware) +
                  " FILE: the same knobs then give the same KV blocks and, step by step,\nthe predicted times. "
                  "See docs/simulator.md.");
  p.option("model", "DIR", "model folder or .gguf file (default: the bundled model)");
  p.option("out", "FILE", "where to write the profile (JSON)");
  p.option("name", "NAME", "the profile's name (default: the file's name without .json)");
  p.option("steps-csv", "FILE", "also write every measured step with its predicted time (CSV)");
  p.flag("quick", "a coarser grid (a quarter of the points): a first look in seconds");
  p.flag("quiet", "no progress output");
  p.knobOptions();
  return p;
}

std::string today() {
  char buf[16];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

int calibrate(int argc, char** argv) {
  ArgParser args = makeParser();
  if (!args.parse(argc, argv)) return 0;
  if (!args.has("out")) throw UsageError("--out FILE is required: where to write the profile");
  const std::string out = *args.value("out");
  {  // before minutes of measuring: a profile that cannot be written would lose them
    const std::filesystem::path parent = std::filesystem::absolute(out).parent_path();
    if (!std::filesystem::is_directory(parent) || access(parent.c_str(), W_OK) != 0)
      throw UsageError("--out " + out + ": cannot write there (" + parent.string() +
                       " is not a writable folder)");
  }
  EngineConfig knobs;
  if (!args.has(findKnob(knob::kBackend)->flag)) knobs.executor.backend = "cpu";  // auto would pick CUDA
  args.applyKnobs(knobs);
  if (knobs.executor.backend == "sim")
    throw UsageError(flagOf(knob::kBackend) + " sim: calibrate times a real backend (cpu or cuda)");
  const bool quiet = args.has("quiet");
  const std::string dir = args.has("model") ? *args.value("model") : defaultModelDir();
  if (!quiet) std::fprintf(stderr, "calibrate: loading %s\n", dir.c_str());
  const auto model = loadModel(dir);
  Engine engine(model, knobs);
  const DeviceInfo device = engine.deviceInfo();
  const CalibrationGrid grid = defaultCalibrationGrid(engine, args.has("quick"));
  if (!quiet) std::fprintf(stderr, "calibrate: timing %s (%s)\n", device.backend.c_str(), device.name.c_str());
  const bool tty = isatty(fileno(stderr)) != 0;
  Calibration c = calibrateEngine(engine, grid, [&](int done, int total, const std::string& what) {
    if (quiet) return;
    if (tty) std::fprintf(stderr, "\rcalibrate: %d/%d %-24s", done, total, what.c_str());
    else if (done == total || done % 10 == 0) std::fprintf(stderr, "calibrate: %d/%d %s\n", done, total, what.c_str());
  });
  if (!quiet && tty) std::fputc('\n', stderr);
  sim::HardwareProfile& fitted = c.profile;
  const sim::ErrorStats &before = c.before, &after = c.after;
  std::string name = args.stringOr("name", "");
  if (name.empty()) {
    const size_t slash = out.find_last_of('/');
    name = out.substr(slash == std::string::npos ? 0 : slash + 1);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) name.resize(name.size() - 5);
  }
  fitted.name = name;
  fitted.description = device.name;
  char note[512];
  std::snprintf(note, sizeof note,
                "Fitted by llm-workbench calibrate on %s, %s, on %d measured steps of %s (%s grid): median "
                "|error| of the predicted step time %.1f %%, 90th percentile %.1f %%.",
                today().c_str(), device.name.c_str(), after.n, model->config.architecture.c_str(),
                args.has("quick") ? "quick" : "full", after.median * 100, after.p90 * 100);
  if (!device.gpu())
    fitted.citations = {"Measured on this machine: bf16_tflops and memory_bandwidth_gbs are the effective rates the "
                        "fit found (a small model's weights sit in the caches), not datasheet figures"};
  writeTextFile(out, sim::hardwareProfileJson(fitted, note));
  if (args.has("steps-csv")) writeTextFile(*args.value("steps-csv"), calibrationStepsCsv(c));
  std::printf("calibrate: %d steps; median |error| %.1f %% -> %.1f %%, p90 %.1f %% -> %.1f %% (start -> fitted)\n",
              after.n, before.median * 100, after.median * 100, before.p90 * 100, after.p90 * 100);
  std::printf("calibrate: wrote %s (use %s sim %s %s)\n", out.c_str(), flagOf(knob::kBackend).c_str(),
              flagOf(knob::kSimHardware).c_str(), out.c_str());
  return 0;
}

}  // namespace

int runCalibrate(int argc, char** argv) { return runReportingErrors("calibrate", calibrate, argc, argv); }

}  // namespace lwb::app
