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
#include "engine/bench/bench_setting.h"
#include "engine/bench/goodput.h"
#include "engine/bench/workload.h"

namespace lwb::app {

// --sweep KEY=V1,V2,...: one run per value, the same seeded workload otherwise.
struct BenchSweep {
  std::string key;                  // a knob's vLLM name, or request_rate / max_concurrency
  std::vector<std::string> values;  // as given, each checked against the key's range
  bool sweepsKnob() const;          // an engine knob (refused against --endpoint)
  bool sweepsRequestRate() const;
};

// --search KNOB[=V1,V2,...] ...: a grid over knobs for the highest goodput; a knob without
// values gets default candidates once the engine's defaults are known (bench_search.h).
struct SearchAxis {
  std::string knob;                 // vLLM name
  std::vector<std::string> values;  // empty: default candidates
};

// --pd P:D: prefill/decode disaggregation (engine/pd_engine.h). CPU backend: P and D
// are the prefill and the decode instance's threads; sim: N prefill and M decode
// instances of the simulated device.
struct PdSplit {
  int prefill = 1, decode = 1;
};
// "P:D", two positive counts (at most 64 each on the sim backend, 4096 threads on the
// CPU); throws UsageError naming --pd and the value. Also the window's --pd.
PdSplit parsePdSplit(const std::string& text, const std::string& backend);

struct BenchOptions {
  std::string modelDir;     // "" = lwb::defaultModelDir()
  WorkloadOptions workload;
  EngineConfig engine;
  std::string jsonPath, tracePath, csvPrefix;  // "" = not written
  bool help = false;
  bool quiet = false;       // --quiet: no progress output
  std::optional<GoodputSlo> goodput;  // --goodput ttft:MS tpot:MS e2el:MS
  int maxConcurrency = 0;   // --max-concurrency: requests in flight at most (0 = no limit)
  std::optional<BenchSweep> sweep;
  std::vector<SearchAxis> search;
  std::optional<PdSplit> pd;
  // --replicas N (sim): N colocated instances, routed least-loaded: the baseline for a
  // P/D deployment on the same number of simulated GPUs (engine/replicated_engine.h).
  int replicas = 0;         // 0 = one engine
};

// `o` with `key` (a knob's vLLM name, request_rate or max_concurrency) set to `value`;
// throws UsageError naming both and the expected range.
BenchOptions withSetting(const BenchOptions& o, const std::string& key, const std::string& value);

// The options of one run of a sweep: `o` with `key` set to `value` (already checked).
BenchOptions sweepRunOptions(const BenchOptions& o, const std::string& value);

// `args` excludes the program and sub-command names. Throws UsageError naming the flag,
// the value and the accepted range.
BenchOptions parseBenchArgs(const std::vector<std::string>& args);
std::string benchUsage();

// The setting of one run: o's workload, knobs, max_concurrency and SLOs.
BenchSetting benchSetting(const BenchOptions& o);

using lwb::benchConfigJson;  // the knobs and workload of a run under vLLM's names

}  // namespace lwb::app
