#include "engine/config/engine_config.h"

#include <cctype>

#include "engine/common/error.h"
#include "engine/config/knobs.h"

namespace lwb {

std::string schedulingPolicyName(SchedulingPolicy p) {
  return p == SchedulingPolicy::Priority ? "priority" : "fcfs";
}

bool parseSchedulingPolicy(const std::string& s, SchedulingPolicy* out) {
  if (s == "fcfs") *out = SchedulingPolicy::Fcfs;
  else if (s == "priority") *out = SchedulingPolicy::Priority;
  else return false;
  return true;
}

void EngineConfig::validate() const {
  for (const Knob& k : knobTable()) k.check(k.get(*this));
}

BatchDefaults vllmBatchDefaults(const DeviceInfo& device) {
  BatchDefaults d;
  if (!device.gpu()) {
    d.source = "vLLM's default on CPU";
    return d;
  }
  std::string name = device.name;
  for (char& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  const size_t gib = size_t(1) << 30;
  const bool large = device.totalMemory >= 70 * gib && name.find("a100") == std::string::npos;
  d.maxNumBatchedTokens = large ? 8192 : 2048;
  d.maxNumSeqs = large ? 1024 : 256;
  d.source = "vLLM's default on " + device.name + " (" + std::to_string(device.totalMemory / gib) + " GiB" +
             (large ? ", >= 70 GiB" : "") + ")";
  return d;
}

EngineConfig EngineConfig::resolvedFor(const DeviceInfo& device) const {
  EngineConfig c = *this;
  const BatchDefaults d = vllmBatchDefaults(device);
  if (c.maxNumBatchedTokens == 0) c.maxNumBatchedTokens = d.maxNumBatchedTokens;
  if (c.maxNumSeqs == 0) c.maxNumSeqs = d.maxNumSeqs;
  return c;
}

int EngineConfig::validateFor(int modelMaxPositions, const DeviceInfo& device) const {
  validate();
  const int maxLen = effectiveMaxModelLen(modelMaxPositions);
  const EngineConfig r = resolvedFor(device);
  const int maxNumBatchedTokens = r.maxNumBatchedTokens, maxNumSeqs = r.maxNumSeqs;
  const std::string budget(knob::kMaxNumBatchedTokens), seqs(knob::kMaxNumSeqs), len(knob::kMaxModelLen),
      chunked(knob::kEnableChunkedPrefill);
  const std::string tokens = budget + " (" + std::to_string(maxNumBatchedTokens) + ")";
  check(maxNumBatchedTokens >= maxNumSeqs,
        tokens + " is smaller than " + seqs + " (" + std::to_string(maxNumSeqs) +
            "); expected at least one token per sequence in a step. Increase " + budget + " or decrease " + seqs);
  check(enableChunkedPrefill || maxNumBatchedTokens >= maxLen,
        tokens + " is smaller than " + len + " (" + std::to_string(maxLen) + ") with " + chunked +
            " off: a prompt must then fit one step, so longer sequences could never run. Increase " + budget +
            ", decrease " + len + " or turn " + chunked + " on");
  return maxLen;
}

bool EngineConfig::structuralDiffers(const EngineConfig& o) const {
  for (const Knob& k : knobTable())
    if (k.rebuilds(*this, o)) return true;
  return executor.deviceIndex != o.executor.deviceIndex;
}

bool EngineConfig::executorDiffers(const EngineConfig& o) const {
  for (const Knob& k : knobTable())
    if (k.apply == KnobApply::RebuildExecutor && k.get(*this) != k.get(o)) return true;
  return executor.deviceIndex != o.executor.deviceIndex;
}

int EngineConfig::effectiveMaxModelLen(int modelMaxPositions) const {
  if (maxModelLen == 0) return modelMaxPositions;
  check(maxModelLen <= modelMaxPositions,
        std::string(knob::kMaxModelLen) + ": " + std::to_string(maxModelLen) + " exceeds the model's max_position_embeddings " +
            std::to_string(modelMaxPositions) + "; expected 1.." + std::to_string(modelMaxPositions) +
            " (0 = the model's)");
  return maxModelLen;
}

}  // namespace lwb
