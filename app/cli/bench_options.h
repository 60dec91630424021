#pragma once
// Arguments of `llm-workbench bench` (modelled on `vllm bench serve` plus the engine
// knobs of the knob table) and of `serve`, parsed without touching the model or the
// engine so that they can be tested on their own. A repeated flag: the last wins.
// "--flag value" and "--flag=value" both work.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/args.h"
#include "engine/config/engine_config.h"
#include "engine/bench/goodput.h"
#include "engine/bench/workload.h"

namespace lwb::app {

struct BenchOptions {
  std::string modelDir;     // "" = lwb::defaultModelDir()
  WorkloadOptions workload;
  EngineConfig engine;
  std::string jsonPath, tracePath, csvPrefix;  // "" = not written
  bool help = false;
  bool quiet = false;       // --quiet: no progress output
  std::optional<GoodputSlo> goodput;  // --goodput ttft:MS tpot:MS e2el:MS
};

// `args` excludes the program and sub-command names. Throws UsageError naming the flag,
// the value and the accepted range.
BenchOptions parseBenchArgs(const std::vector<std::string>& args);
std::string benchUsage();

// The knobs and workload of a run under vLLM's names, for the saved JSON.
nlohmann::json benchConfigJson(const WorkloadOptions& workload, const EngineConfig& engine);

}  // namespace lwb::app
