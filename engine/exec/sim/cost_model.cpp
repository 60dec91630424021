#include "engine/exec/sim/cost_model.h"

#include <algorithm>
#include <numeric>

#include "engine/common/error.h"
#include "engine/config/knobs.h"

namespace lwb::sim {

namespace {

constexpr double kActivationBytes = 2;  // 16-bit activations
constexpr double kSamplingVocab = 131072;

double bytesPerElement(const std::string& dtype, const std::string& what) {
  if (dtype == "auto" || dtype == "bfloat16" || dtype == "float16" || dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp8" || dtype == "fp8_e4m3" || dtype == "fp8_e5m2") return 1;
  if (dtype == "float32") return 4;
  throw Error(what + " '" + dtype + "': expected auto, bfloat16, float16, float32 or fp8");
}

// Seconds to stream `bytes` at `efficiency` of the memory bandwidth.
double streamSeconds(const HardwareProfile& hw, double bytes, double efficiency) {
  return bytes / (hw.memoryBandwidthGBs * 1e9 * efficiency);
}

double allReduceSeconds(const HardwareProfile& hw, int ranks, double bytes) {
  if (ranks <= 1) return 0;
  return hw.interconnectLatencyUs * 1e-6 +
         2.0 * (ranks - 1) / ranks * bytes / (hw.interconnectGBs * 1e9 * hw.allReduceEfficiency);
}

// One layer's attention over the step's sequences, for one rank: a prefill kernel for
// the chunks and a decode kernel for the single-token rows, when the step has them.
double attentionSeconds(const SimModel& m, const HardwareProfile& hw, const StepShape& step) {
  const double headDim = m.config.headDim;
  double flops = 0, prefillBytes = 0, decodeBytes = 0;
  bool prefill = false, decode = false;
  for (const StepSeq& s : step.seqs) {
    const double ctx = s.context, n = s.newTokens;
    const double readBytes = 2.0 * m.kvHeadsPerRank() * headDim * (ctx + n) * m.kvBytesPerElement;
    if (s.newTokens == 1) {
      decode = true;
      decodeBytes += readBytes;
    } else {
      prefill = true;
      flops += 4.0 * m.headsPerRank() * headDim * n * (ctx + n);
      prefillBytes += readBytes;
    }
  }
  const double floor = hw.attentionFloorUs * 1e-6;
  double t = 0;
  if (prefill)
    t += floor + std::max(flops / (hw.bf16Tflops * 1e12 * hw.attentionEfficiency),
                          streamSeconds(hw, prefillBytes, hw.kvMemoryEfficiency));
  if (decode) t += floor + streamSeconds(hw, decodeBytes, hw.kvMemoryEfficiency);
  return t;
}

}  // namespace

int SimModel::headsPerRank() const { return config.numAttentionHeads / tensorParallelSize; }

int SimModel::kvHeadsPerRank() const { return std::max(1, config.numKeyValueHeads / tensorParallelSize); }

SimModel makeSimModel(const ModelConfig& config, int tensorParallelSize, const std::string& weightDtype,
                      const std::string& kvCacheDtype) {
  const int tp = tensorParallelSize;
  const std::string tpName(knob::kTensorParallelSize);
  check(tp >= 1, tpName + " " + std::to_string(tp) + ": expected 1 or more");
  check(config.numAttentionHeads % tp == 0, [&] {
    return tpName + " " + std::to_string(tp) + " does not divide num_attention_heads " +
           std::to_string(config.numAttentionHeads);
  });
  const int kv = config.numKeyValueHeads;
  check(kv % tp == 0 || tp % kv == 0, [&] {
    return tpName + " " + std::to_string(tp) + " neither divides num_key_value_heads " + std::to_string(kv) +
           " nor is a multiple of it";
  });
  SimModel m;
  m.config = config;
  m.tensorParallelSize = tp;
  m.weightBytesPerParam = bytesPerElement(weightDtype, "weight dtype");
  m.kvBytesPerElement = bytesPerElement(kvCacheDtype, std::string(knob::kKvCacheDtype));
  return m;
}

int StepShape::numTokens() const {
  return std::accumulate(seqs.begin(), seqs.end(), 0, [](int n, const StepSeq& s) { return n + s.newTokens; });
}

bool StepShape::decodeOnly() const {
  return std::all_of(seqs.begin(), seqs.end(), [](const StepSeq& s) { return s.newTokens == 1; });
}

double OpTimes::total() const {
  return qkvProj + oProj + mlpGateUp + mlpDown + attention + lmHead + allReduce + overhead + sampling;
}

const std::vector<OpName>& opNames() {
  static const std::vector<OpName> names = {
      {"qkv_proj", &OpTimes::qkvProj},   {"o_proj", &OpTimes::oProj},       {"mlp_gate_up", &OpTimes::mlpGateUp},
      {"mlp_down", &OpTimes::mlpDown},   {"attention", &OpTimes::attention}, {"lm_head", &OpTimes::lmHead},
      {"all_reduce", &OpTimes::allReduce}, {"overhead", &OpTimes::overhead}, {"sampling", &OpTimes::sampling}};
  return names;
}

const double* opTime(const OpTimes& times, const std::string& op) {
  for (const OpName& o : opNames())
    if (op == o.name) return &(times.*o.time);
  return nullptr;
}

double gemmSeconds(const HardwareProfile& hw, double m, double n, double k, double weightBytesPerParam,
                   double peakTflops) {
  if (m <= 0) return 0;
  const double flops = 2 * m * n * k;
  const double efficiency = hw.gemmEfficiency * m / (m + hw.gemmHalfRows);
  const double bytes = n * k * weightBytesPerParam + (m * k + m * n) * kActivationBytes;
  return std::max(hw.gemmTailUs * 1e-6 + flops / (peakTflops * 1e12 * efficiency),
                  hw.gemmLaunchUs * 1e-6 + streamSeconds(hw, bytes, hw.memoryEfficiency));
}

OpTimes predictStep(const SimModel& m, const HardwareProfile& hw, const StepShape& step) {
  const ModelConfig& c = m.config;
  const int tp = m.tensorParallelSize;
  const double rows = step.numTokens();
  double logitRows = 0;
  for (const StepSeq& s : step.seqs) logitRows += s.needLogits ? 1 : 0;
  // FP8 weights run on the FP8 tensor cores where the device has them.
  const double peak = m.weightBytesPerParam == 1 && hw.fp8Tflops > 0 ? hw.fp8Tflops : hw.bf16Tflops;
  const double h = c.hiddenSize, layers = c.numHiddenLayers, wb = m.weightBytesPerParam;
  const double qkvWidth = double(m.headsPerRank() + 2 * m.kvHeadsPerRank()) * c.headDim;
  OpTimes t;
  t.qkvProj = layers * gemmSeconds(hw, rows, qkvWidth, h, wb, peak);
  t.oProj = layers * gemmSeconds(hw, rows, h, double(m.headsPerRank()) * c.headDim, wb, peak);
  t.mlpGateUp = layers * gemmSeconds(hw, rows, 2.0 * c.intermediateSize / tp, h, wb, peak);
  t.mlpDown = layers * gemmSeconds(hw, rows, h, double(c.intermediateSize) / tp, wb, peak);
  t.attention = layers * attentionSeconds(m, hw, step);
  t.lmHead = gemmSeconds(hw, logitRows, double(c.vocabSize) / tp, h, wb, peak);
  t.allReduce = layers * 2 * allReduceSeconds(hw, tp, rows * h * kActivationBytes);
  const double perLayerUs = step.decodeOnly() ? hw.graphUsPerLayer : hw.launchUsPerLayer;
  t.overhead = (hw.stepOverheadUs + layers * perLayerUs) * 1e-6;
  t.sampling = hw.samplingUsPerRow * logitRows * (c.vocabSize / kSamplingVocab) * 1e-6;
  for (double* v : {&t.qkvProj, &t.oProj, &t.mlpGateUp, &t.mlpDown, &t.attention, &t.lmHead, &t.allReduce,
                    &t.overhead, &t.sampling})
    *v *= 1e3;  // seconds → milliseconds
  return t;
}

}  // namespace lwb::sim
