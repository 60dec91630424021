#include "engine/bench/bench_setting.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/config/config_json.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/model/model.h"

namespace lwb {

namespace {

int parseConcurrency(const std::string& value) {
  size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  check(used == value.size() && n >= 1, "expected a whole number >= 1");
  return n;
}

}  // namespace

bool isKnobKey(std::string_view key) { return findKnob(key) != nullptr; }

bool isSettingKey(std::string_view key) {
  return key == bench_key::kRequestRate || key == bench_key::kMaxConcurrency || isKnobKey(key);
}

void applySetting(BenchSetting& s, const std::string& key, const std::string& value) {
  if (key == bench_key::kMaxConcurrency) {
    s.maxConcurrency = parseConcurrency(value);
    return;
  }
  if (key == bench_key::kRequestRate) {
    std::string flag(bench_key::kRequestRate);
    std::replace(flag.begin(), flag.end(), '_', '-');
    parseWorkloadOption(flag, value, &s.workload);
    s.workload.validate();
    return;
  }
  const Knob* k = findKnob(key);
  check(k != nullptr, key + ": not a knob (by its vLLM name), " + std::string(bench_key::kRequestRate) + " or " +
                          std::string(bench_key::kMaxConcurrency));
  const KnobValue parsed = k->parse(value);
  k->check(parsed);
  k->set(s.engine, parsed);
  s.engine.validate();
}

nlohmann::json benchConfigJson(const WorkloadOptions& w, const EngineConfig& e) {
  nlohmann::json j = workloadJson(w);
  j.update(configToJson(e));
  return j;
}

std::vector<SyntheticRequest> workloadFor(const BenchSetting& s, const Model& model, int maxModelLen,
                                          int* numClamped) {
  const WorkloadOptions& w = s.workload;
  check(w.outputLen < maxModelLen, "--output-len " + std::to_string(w.outputLen) + ": must be below " +
                                       std::string(knob::kMaxModelLen) + " " + std::to_string(maxModelLen));
  auto workload = makeWorkloadFor(w, model);
  const int n = clampPromptLengths(workload, maxModelLen - w.outputLen);
  if (numClamped) *numClamped = n;
  return workload;
}

BenchRun runBenchSetting(Engine& engine, const std::vector<SyntheticRequest>& workload, const BenchSetting& s,
                         const std::string& modelName, const BenchProgress& progress,
                         const std::atomic<bool>* cancel) {
  BenchRun run = runServingBenchmark(engine, workload, progress, {s.maxConcurrency, cancel});
  nlohmann::json& config = run.report.config;
  config = benchConfigJson(s.workload, s.engine);
  const DeviceInfo device = engine.deviceInfo();
  config["model"] = modelName;
  config["device"] = device.backend + ": " + device.name;
  config["num_kv_blocks"] = engine.numKvBlocks();
  if (engine.simulated()) {  // every figure of the report is predicted, not measured
    run.report.simHardware = s.engine.executor.simHardware;
    run.report.simulatedDevice = device.name;
  }
  if (s.maxConcurrency > 0) config[std::string(bench_key::kMaxConcurrency)] = s.maxConcurrency;
  const std::string effective = "effective_";
  config[effective + std::string(knob::kMaxModelLen)] = engine.maxModelLen();
  const EngineConfig inForce = engine.effectiveConfig();  // vLLM's defaults for the device filled in
  config[effective + std::string(knob::kMaxNumBatchedTokens)] = inForce.maxNumBatchedTokens;
  config[effective + std::string(knob::kMaxNumSeqs)] = inForce.maxNumSeqs;
  if (s.goodput) applyGoodput(run.report, *s.goodput);
  return run;
}

BenchRun runBenchSetting(const std::shared_ptr<const Model>& model, const BenchSetting& s,
                         const BenchProgress& progress, const std::atomic<bool>* cancel) {
  Engine engine(model, s.engine);
  const auto workload = workloadFor(s, *model, engine.maxModelLen());
  return runBenchSetting(engine, workload, s, model->dir, progress, cancel);
}

}  // namespace lwb
