#include "engine/bench/calibration.h"

#include <sys/sysinfo.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>

#include "engine/bench/workload.h"
#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/exec/sim/hardware_profile.h"
#include "engine/exec/sim/sim_executor.h"
#include "engine/model/model.h"

namespace lwb {

namespace {

std::vector<int> powersOfTwo(int lo, int hi, int stride) {
  std::vector<int> v;
  for (int x = lo; x <= hi; x *= stride) v.push_back(x);
  if (v.empty() || v.back() != hi) v.push_back(hi);
  return v;
}

// `count` requests of `promptLen` tokens (BOS included), each producing `outputLen`.
std::vector<SyntheticRequest> requestsOf(const Engine& engine, int count, int promptLen, int outputLen, uint64_t seed) {
  WorkloadOptions o;
  o.numPrompts = count;
  o.inputLen = std::max(promptLen - 1, 1);
  o.outputLen = outputLen;
  o.ignoreEos = true;
  o.seed = seed;
  return makeWorkloadFor(o, engine.model());
}

// Runs `requests` to the end, appending every forward pass to `out`.
void runAll(Engine& engine, const std::vector<SyntheticRequest>& requests, std::vector<sim::StepSample>* out) {
  std::optional<sim::StepShape> shape;
  engine.setStepShapeObserver([&](const sim::StepShape& s) { shape = s; });
  for (const SyntheticRequest& r : requests) engine.addRequest({r.promptTokenIds, r.sampling, 0, "calibration"});
  while (engine.hasUnfinishedRequests()) {
    shape.reset();
    const StepOutput step = engine.step();
    check(step.error.empty(), "calibration: a step failed: " + step.error);
    for (const RequestId id : step.newlyFinished) {
      const RequestTimeline* t = engine.timeline(id);
      check(t && t->error.empty(), "calibration: a request failed: " + (t ? t->error : std::string()));
      engine.releaseRequest(id);
    }
    if (out && step.ranForward() && shape && step.record.duration > 0) out->push_back({*shape, step.record.duration});
  }
  engine.setStepShapeObserver({});
}

}  // namespace

CalibrationGrid defaultCalibrationGrid(const Engine& engine, bool quick) {
  const EngineConfig c = engine.effectiveConfig();
  const int maxLen = engine.maxModelLen();
  const int stride = quick ? 4 : 2;
  CalibrationGrid g;
  g.prefillRows = powersOfTwo(1, std::min(c.maxNumBatchedTokens, maxLen - 1), stride);
  g.decodeBatches = powersOfTwo(1, c.maxNumSeqs, stride);
  g.contexts = powersOfTwo(16, std::max(16, maxLen / 2), stride);
  g.prefixRows = quick ? std::vector<int>{64} : std::vector<int>{16, 64, 256};
  g.decodeSteps = quick ? 16 : 32;  // mostly steady decode steps, as serving runs them
  g.repeats = quick ? 1 : 2;
  return g;
}

std::vector<sim::StepSample> measureCalibrationSteps(Engine& engine, const CalibrationGrid& grid,
                                                     const CalibrationProgress& progress) {
  check(!engine.simulated(), "calibrate: the engine is simulated; calibration times a real backend");
  check(!engine.hasUnfinishedRequests(), "calibrate: the engine is busy");
  EngineConfig config = engine.config();
  config.enablePrefixCaching = false;  // every prompt token is computed
  config.speculative = {};
  engine.setConfig(config);
  const int maxLen = engine.maxModelLen();
  std::vector<sim::StepSample> samples;
  const int total = int(grid.prefillRows.size()) * grid.repeats +
                    int((grid.decodeBatches.size() + grid.prefixRows.size()) * grid.contexts.size());
  int done = 0;
  uint64_t seed = 1;
  runAll(engine, requestsOf(engine, 1, 16, 4, seed++), nullptr);  // warm-up: caches, threads, buffers
  for (int rep = 0; rep < grid.repeats; ++rep)
    for (const int rows : grid.prefillRows) {
      if (progress) progress(done, total, "prefill R=" + std::to_string(rows));
      runAll(engine, requestsOf(engine, 1, std::min(rows, maxLen - 1), 1, seed++), &samples);
      ++done;
    }
  for (const int context : grid.contexts)
    for (const int batch : grid.decodeBatches) {
      if (progress) progress(done, total, "decode B=" + std::to_string(batch) + " C=" + std::to_string(context));
      const int outputLen = std::min(grid.decodeSteps, maxLen - context - 1);
      if (outputLen >= 1) runAll(engine, requestsOf(engine, batch, context, outputLen, seed++), &samples);
      ++done;
    }
  // Prefills over a cached prefix (a shared system prompt's shape): the prefix runs once,
  // then a prompt sharing it computes only its own rows, against that context.
  config.enablePrefixCaching = true;
  engine.setConfig(config);
  for (const int context : grid.contexts)
    for (const int rows : grid.prefixRows) {
      if (progress) progress(done, total, "prefix R=" + std::to_string(rows) + " C=" + std::to_string(context));
      ++done;
      if (context + rows + 2 > maxLen) continue;
      std::vector<SyntheticRequest> prefix = requestsOf(engine, 1, context + 1, 1, seed++);
      runAll(engine, prefix, nullptr);
      std::vector<int>& ids = prefix.front().promptTokenIds;
      ids.resize(size_t(context));
      const std::vector<int> own = requestsOf(engine, 1, rows + 1, 1, seed++).front().promptTokenIds;
      ids.insert(ids.end(), own.begin() + 1, own.end());  // its own part, BOS left out
      runAll(engine, prefix, &samples);
    }
  if (progress) progress(total, total, "done");
  return samples;
}

sim::HardwareProfile startingProfile(const DeviceInfo& device) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  if (!device.gpu()) {
    sim::HardwareProfile p;
    p.kind = "cpu";
    struct sysinfo info {};
    sysinfo(&info);
    p.memoryGiB = double(info.totalram) * info.mem_unit / kGiB;
    p.memoryBandwidthGBs = 50;
    p.bf16Tflops = 0.1;
    p.interconnectGBs = 1;  // unused: a CPU profile simulates one device
    p.gemmEfficiency = p.memoryEfficiency = 1;  // the rates themselves are fitted
    p.allReduceEfficiency = 1;                    // unused
    p.gemmHalfRows = 4;
    p.gemmLaunchUs = 5;
    p.gemmTailUs = 0;
    p.attentionEfficiency = 0.1;
    p.kvMemoryEfficiency = 0.5;
    p.attentionFloorUs = 5;
    p.stepOverheadUs = 100;
    p.launchUsPerLayer = p.graphUsPerLayer = 10;
    p.samplingUsPerRow = 5;
    return p;
  }
  auto lower = [](std::string t) {
    for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
    return t;
  };
  const std::string name = lower(device.name);
  for (const std::string& preset : sim::hardwarePresetNames()) {
    sim::HardwareProfile p = sim::loadHardwareProfile(preset);
    if (lower(p.description).find(name) != std::string::npos || name.find(preset) != std::string::npos) return p;
  }
  sim::HardwareProfile p = sim::loadHardwareProfile("h100-sxm");
  p.memoryGiB = double(device.totalMemory) / kGiB;
  return p;
}

Calibration calibrateEngine(Engine& engine, const CalibrationGrid& grid, const CalibrationProgress& progress) {
  const DeviceInfo device = engine.deviceInfo();
  Calibration c;
  c.samples = measureCalibrationSteps(engine, grid, progress);
  const std::vector<sim::StepSample>& samples = c.samples;
  const sim::HardwareProfile start = startingProfile(device);
  c.model = simModelFor(engine.model().config, engine.config().executor, start);  // the engine's KV dtype
  c.before = sim::stepErrors(c.model, start, samples);
  c.profile = sim::fitProfile(c.model, start, device.gpu() ? sim::gpuFitParameters() : sim::cpuFitParameters(), samples);
  c.after = sim::stepErrors(c.model, c.profile, samples);
  return c;
}

std::string calibrationStepsCsv(const Calibration& c) {
  std::string out = "rows,seqs,decode_rows,mean_context,measured_ms,predicted_ms\n";
  char line[160];
  for (const sim::StepSample& s : c.samples) {
    int decode = 0;
    double context = 0;
    for (const sim::StepSeq& q : s.shape.seqs) {
      decode += q.newTokens == 1 ? 1 : 0;
      context += q.context;
    }
    std::snprintf(line, sizeof line, "%d,%zu,%d,%.1f,%.4f,%.4f\n", s.shape.numTokens(), s.shape.seqs.size(), decode,
                  context / double(std::max<size_t>(s.shape.seqs.size(), 1)), s.seconds * 1e3,
                  sim::predictStep(c.model, c.profile, s.shape).total());
    out += line;
  }
  return out;
}

}  // namespace lwb
