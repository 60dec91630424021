#pragma once
// One serving-benchmark run's setting — the workload, the engine's knobs, vLLM's
// max_concurrency and the SLOs — and running it on a loaded model with a fresh Engine.
// Shared by `llm-workbench bench` (every run of --sweep and --search) and the window's
// Capacity view, so a row of a sweep means the same in both.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/bench/bench_runner.h"
#include "engine/bench/goodput.h"
#include "engine/bench/workload.h"
#include "engine/config/engine_config.h"

namespace lwb {

class Engine;
struct Model;

// The two workload keys a sweep may vary besides the knobs (vLLM's names).
namespace bench_key {
inline constexpr std::string_view kRequestRate = "request_rate";
inline constexpr std::string_view kMaxConcurrency = "max_concurrency";
}  // namespace bench_key

struct BenchSetting {
  WorkloadOptions workload;
  EngineConfig engine;
  int maxConcurrency = 0;             // requests in flight at most; 0 = no limit
  std::optional<GoodputSlo> goodput;  // none: request_goodput is null
};

// A knob's vLLM name, request_rate or max_concurrency.
bool isSettingKey(std::string_view key);
bool isKnobKey(std::string_view key);  // a knob of the table (refused against --endpoint)

// Sets `key` (isSettingKey) to `value` as typed ("4", "inf", "on", "fcfs") and checks the
// whole setting; throws lwb::Error saying what was expected (a knob's message names it).
void applySetting(BenchSetting& setting, const std::string& key, const std::string& value);

// The knobs and workload of a run under vLLM's names: a report's "config".
nlohmann::json benchConfigJson(const WorkloadOptions& workload, const EngineConfig& engine);

// `setting`'s workload for a model whose max_model_len is `maxModelLen`: prompts longer
// than maxModelLen − output_len are clamped (*numClamped says how many); throws
// lwb::Error naming --output-len (the workload's spelling) when the output alone does not fit.
std::vector<SyntheticRequest> workloadFor(const BenchSetting& setting, const Model& model, int maxModelLen,
                                          int* numClamped = nullptr);

// Runs `workload` on `engine` (fresh, built from setting.engine) and completes the report:
// "config" (knobs, workload, `modelName`, device, KV blocks, effective_* knobs), the
// simulated hardware of a sim engine, and goodput when setting.goodput is set.
BenchRun runBenchSetting(Engine& engine, const std::vector<SyntheticRequest>& workload, const BenchSetting& setting,
                         const std::string& modelName, const BenchProgress& progress = {},
                         const std::atomic<bool>* cancel = nullptr);

// The same on a fresh Engine for `model`, with the workload clamped as workloadFor does.
BenchRun runBenchSetting(const std::shared_ptr<const Model>& model, const BenchSetting& setting,
                         const BenchProgress& progress = {}, const std::atomic<bool>* cancel = nullptr);

}  // namespace lwb
