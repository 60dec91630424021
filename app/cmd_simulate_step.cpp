// `llm-workbench simulate-step`: the simulator's cost model for one step of one shape,
// per operator, on a hardware preset or profile (engine/exec/sim/cost_model.h). It prices
// the step it is given: it sizes no KV pool, checks no memory and is bound by no batch
// limit; a model folder needs only its config.json.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/cli/args.h"
#include "app/commands.h"
#include "engine/common/error.h"
#include "engine/config/engine_config.h"
#include "engine/config/knobs.h"
#include "engine/exec/sim/cost_model.h"
#include "engine/exec/sim/hardware_profile.h"
#include "engine/model/model_config.h"

namespace lwb::app {

namespace {

using json = nlohmann::ordered_json;

ArgParser makeParser() {
  const std::string hw = findKnob(knob::kSimHardware)->flag, tp = findKnob(knob::kTensorParallelSize)->flag;
  ArgParser p("simulate-step",
              "llm-workbench simulate-step --" + hw + " NAME|FILE --model CONFIG_OR_DIR [--" + tp + " N]\n"
              "       (--prefill-tokens N [--context C] | --decode-seqs B --context C) [--json]",
              "Predicts the time of one engine step on simulated hardware, per operator, from the\n"
              "simulator's cost model (a roofline per operator with the profile's efficiencies; see\n"
              "docs/simulator.md). Times are one tensor-parallel rank's, in milliseconds, the layer\n"
              "operators summed over the layers. Only config.json is read: no weights are needed.\n"
              "Hardware presets: " + sim::hardwarePresetList() + ".");
  p.option("model", "CONFIG_OR_DIR", "a model's config.json, or a folder holding one");
  p.option("weight-dtype", "DTYPE", "bfloat16 (default), float16 or fp8");
  p.option("prefill-tokens", "N", "a prefill step of N new tokens (one sequence)");
  p.option("decode-seqs", "B", "a decode step of B sequences, one token each");
  p.option("context", "C", "tokens already in each sequence's KV cache (default 0)");
  p.flag("json", "print one JSON object on stdout");
  p.knobOptions();
  return p;
}

ModelConfig readModelConfig(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path file = fs::is_directory(path) ? fs::path(path) / "config.json" : fs::path(path);
  check(fs::is_regular_file(file), "--model " + path + ": no config.json there");
  return loadModelConfig(file.string());
}

sim::StepShape readShape(const ArgParser& args) {
  const bool prefill = args.has("prefill-tokens"), decode = args.has("decode-seqs");
  if (prefill == decode) throw UsageError("give exactly one of --prefill-tokens N or --decode-seqs B");
  if (decode && !args.has("context")) throw UsageError("--decode-seqs needs --context C");
  const int context = int(args.integer("context", 0, 0, 1LL << 30));
  sim::StepShape step;
  if (prefill) {
    step.seqs.push_back({int(args.integer("prefill-tokens", 1, 1, 1 << 24)), context, true});
  } else {
    const int seqs = int(args.integer("decode-seqs", 1, 1, 1 << 20));
    step.seqs.assign(seqs, sim::StepSeq{1, context, true});
  }
  return step;
}

json toJson(const sim::OpTimes& t) {
  json ops = json::object();
  for (const sim::OpName& op : sim::opNames()) ops[op.name] = t.*op.time;
  return {{"total_ms", t.total()}, {"ops", ops}};
}

int simulateStep(int argc, char** argv) {
  ArgParser args = makeParser();
  if (!args.parse(argc, argv)) return 0;
  const std::string hardwareFlag = findKnob(knob::kSimHardware)->flag;
  if (!args.has(hardwareFlag))
    throw UsageError("--" + hardwareFlag + " NAME|FILE is required (presets: " + sim::hardwarePresetList() + ")");
  if (!args.has("model")) throw UsageError("--model CONFIG_OR_DIR is required");
  const sim::StepShape step = readShape(args);
  EngineConfig knobs;
  args.applyKnobs(knobs);
  const sim::HardwareProfile hw = sim::loadHardwareProfile(knobs.executor.simHardware);
  const ModelConfig config = readModelConfig(*args.value("model"));
  const int tp = knobs.executor.tensorParallelSize;
  const std::string kvDtype = knobs.executor.kvCacheDtype == "auto" ? "bfloat16" : knobs.executor.kvCacheDtype;
  const sim::SimModel model = sim::makeSimModel(config, tp, args.stringOr("weight-dtype", "bfloat16"), kvDtype);
  const sim::OpTimes t = sim::predictStep(model, hw, step);
  const json out = toJson(t);
  if (args.has("json")) {
    std::puts(out.dump().c_str());
    return 0;
  }
  std::printf("%s, %s, %s %d, %d tokens (simulated)\n", hw.description.c_str(), config.architecture.c_str(),
              std::string(knob::kTensorParallelSize).c_str(), tp, step.numTokens());
  for (const auto& [op, ms] : out["ops"].items()) std::printf("  %-12s %10.4f ms\n", op.c_str(), ms.get<double>());
  std::printf("  %-12s %10.4f ms\n", "total", t.total());
  return 0;
}

}  // namespace

int runSimulateStep(int argc, char** argv) { return runReportingErrors("simulate-step", simulateStep, argc, argv); }

}  // namespace lwb::app
