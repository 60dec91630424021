#include "engine/sched/engine_config.h"

#include <cctype>

#include "engine/common/error.h"
#include "engine/model/model_config.h"

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

namespace {

void checkRange(const char* knob, int64_t value, int64_t lo, int64_t hi) {
  check(value >= lo && value <= hi, std::string(knob) + ": " + std::to_string(value) +
                                        " is out of range; expected " + std::to_string(lo) + ".." +
                                        std::to_string(hi));
}

bool isPowerOfTwo(int v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

void EngineConfig::validate() const {
  checkRange("max_num_batched_tokens", maxNumBatchedTokens, 0, 1 << 20);  // 0 = vLLM's default
  speculative.validate();
  checkRange("max_num_seqs", maxNumSeqs, 0, 1 << 16);
  checkRange("long_prefill_token_threshold", longPrefillTokenThreshold, 0, 1 << 20);
  checkRange("max_model_len", maxModelLen, 0, 1 << 24);
  checkRange("block_size", blockSize, 1, 256);
  check(isPowerOfTwo(blockSize),
        "block_size: " + std::to_string(blockSize) + " is not a power of two; expected 1, 2, 4, ..., 256");
  checkRange("kv_cache_memory_bytes", kvCacheMemoryBytes, 0, int64_t(1) << 50);
  checkRange("num_gpu_blocks_override", numGpuBlocksOverride, 0, 1 << 24);
  const std::string& b = executor.backend;
  check(b == "auto" || b == "cpu" || b == "cuda", "backend: expected auto, cpu or cuda, found '" + b + "'");
  checkRange("threads", executor.numThreads, 0, 4096);
  check(executor.gpuMemoryUtilization > 0 && executor.gpuMemoryUtilization <= 1,
        "gpu_memory_utilization: " + std::to_string(executor.gpuMemoryUtilization) +
            " is out of range; expected (0, 1]");
}

BatchDefaults vllmBatchDefaults(const DeviceInfo& device) {
  BatchDefaults d;
  if (device.backend != "cuda") {
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

int EngineConfig::validateFor(const ModelConfig& model, const DeviceInfo& device) const {
  validate();
  const int maxLen = effectiveMaxModelLen(model);
  const EngineConfig r = resolvedFor(device);
  const int maxNumBatchedTokens = r.maxNumBatchedTokens, maxNumSeqs = r.maxNumSeqs;
  const std::string tokens = "max_num_batched_tokens (" + std::to_string(maxNumBatchedTokens) + ")";
  check(maxNumBatchedTokens >= maxNumSeqs,
        tokens + " is smaller than max_num_seqs (" + std::to_string(maxNumSeqs) +
            "); expected at least one token per sequence in a step. Increase max_num_batched_tokens or "
            "decrease max_num_seqs");
  check(enableChunkedPrefill || maxNumBatchedTokens >= maxLen,
        tokens + " is smaller than max_model_len (" + std::to_string(maxLen) +
            ") with enable_chunked_prefill off: a prompt must then fit one step, so longer sequences "
            "could never run. Increase max_num_batched_tokens, decrease max_model_len or turn "
            "enable_chunked_prefill on");
  return maxLen;
}

bool EngineConfig::structuralDiffers(const EngineConfig& o) const {
  return blockSize != o.blockSize || kvCacheMemoryBytes != o.kvCacheMemoryBytes ||
         numGpuBlocksOverride != o.numGpuBlocksOverride || executor.backend != o.executor.backend ||
         executor.numThreads != o.executor.numThreads || executor.deviceIndex != o.executor.deviceIndex ||
         executor.gpuMemoryUtilization != o.executor.gpuMemoryUtilization || draftModelDiffers(o);
}

// A draft model has its own weights and KV pool: switching to, from or between draft
// models rebuilds; n-gram settings are live.
bool EngineConfig::draftModelDiffers(const EngineConfig& o) const {
  const bool a = speculative.method == SpecMethod::DraftModel, b = o.speculative.method == SpecMethod::DraftModel;
  return a != b || (a && (speculative.model != o.speculative.model ||
                          speculative.numSpeculativeTokens != o.speculative.numSpeculativeTokens));
}

int EngineConfig::effectiveMaxModelLen(const ModelConfig& model) const {
  if (maxModelLen == 0) return model.maxPositionEmbeddings;
  check(maxModelLen <= model.maxPositionEmbeddings,
        "max_model_len: " + std::to_string(maxModelLen) + " exceeds the model's max_position_embeddings " +
            std::to_string(model.maxPositionEmbeddings) + "; expected 1.." +
            std::to_string(model.maxPositionEmbeddings) + " (0 = the model's)");
  return maxModelLen;
}

}  // namespace lwb
