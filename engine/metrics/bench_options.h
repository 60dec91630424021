#pragma once
// Arguments of `llm-workbench bench` (modelled on `vllm bench serve` plus the engine
// knobs), parsed without touching the model or the engine so that they can be tested
// and fuzzed on their own. A repeated flag: the last wins. "--flag value" and
// "--flag=value" both work.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/metrics/workload.h"
#include "engine/sched/engine_config.h"

namespace lwb {

// A bad argument: the CLI prints what() on one line and exits with code 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

struct BenchOptions {
  std::string modelDir;     // "" = lwb::defaultModelDir()
  WorkloadOptions workload;
  EngineConfig engine;
  std::string jsonPath, tracePath, csvPrefix;  // "" = not written
  bool help = false;
  bool quiet = false;       // --quiet: no progress output
};

// `args` excludes the program and sub-command names. Throws UsageError naming the flag,
// the value and the accepted range.
BenchOptions parseBenchArgs(const std::vector<std::string>& args);
std::string benchUsage();

// The knobs and workload of a run under vLLM's names, for the saved JSON.
nlohmann::json benchConfigJson(const WorkloadOptions& workload, const EngineConfig& engine);

}  // namespace lwb
