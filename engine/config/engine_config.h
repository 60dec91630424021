#pragma once
// The values of every engine knob (declared, with ranges and help, in knobs.h). The
// engine owns the config in force; the scheduler and the views read it.
#include <cstdint>
#include <string>

#include "engine/config/device_info.h"
#include "engine/config/kv_transfer_config.h"
#include "engine/config/speculative_config.h"

namespace lwb {

enum class SchedulingPolicy { Fcfs, Priority };
std::string schedulingPolicyName(SchedulingPolicy p);          // "fcfs" | "priority"
bool parseSchedulingPolicy(const std::string& s, SchedulingPolicy* out);

// vLLM's effective defaults of max_num_batched_tokens / max_num_seqs for `vllm serve`,
// which depend on the platform: CPU 2048 / 128; GPUs 2048 / 256, and 8192 / 1024 on
// GPUs with at least 70 GiB that are not A100s (H100 / H200 class).
struct BatchDefaults {
  int maxNumBatchedTokens = 2048;
  int maxNumSeqs = 128;
  std::string source;  // "vLLM's default on CPU", "vLLM's default on NVIDIA H200 (141 GiB)"
};
BatchDefaults vllmBatchDefaults(const DeviceInfo& device);

// What picks and builds the executor (all structural: a change means a new executor).
struct ExecutorOptions {
  std::string backend = "auto";    // backend: "auto" | "cpu" | "cuda" | "sim"
  int numThreads = 0;              // threads: CPU worker threads (0 = all cores)
  double gpuMemoryUtilization = 0.9;  // gpu_memory_utilization
  std::string quantization;        // quantization: "" (none), "q8_0", "q4_k" (CPU only)
  std::string kvCacheDtype = "auto";  // kv_cache_dtype: auto | float32 | bfloat16 | fp8 | fp8_e4m3 | fp8_e5m2
  std::string simHardware = "h100-sxm";  // sim_hardware: a preset name or a profile file
  int tensorParallelSize = 1;      // tensor_parallel_size (sim backend)
  int deviceIndex = 0;             // not a knob: CUDA device 0 (CUDA_VISIBLE_DEVICES chooses)
};

struct EngineConfig {
  // Live: applied at the next step boundary.
  int maxNumBatchedTokens = 0;         // max_num_batched_tokens (0 = vLLM's default for the device)
  int maxNumSeqs = 0;                  // max_num_seqs (0 = vLLM's default for the device)
  bool enableChunkedPrefill = true;    // enable_chunked_prefill
  bool enablePrefixCaching = true;     // enable_prefix_caching
  int longPrefillTokenThreshold = 0;   // long_prefill_token_threshold (0 = off)
  SchedulingPolicy schedulingPolicy = SchedulingPolicy::Fcfs;  // scheduling_policy
  int maxModelLen = 0;                 // max_model_len (0 = the model's max_position_embeddings)
  bool schedulerReserveFullIsl = true; // scheduler_reserve_full_isl

  // Structural: changing these rebuilds the KV pool (in-flight work drains or is aborted).
  int blockSize = 16;                  // block_size: tokens per KV block, a power of two
  int64_t kvCacheMemoryBytes = 0;      // kv_cache_memory_bytes (0 = default budget)
  int numGpuBlocksOverride = 0;        // num_gpu_blocks_override (0 = unset)
  ExecutorOptions executor;            // backend, threads, gpu_memory_utilization, quantization,
                                       // kv_cache_dtype

  // speculative_config (off by default). ngram settings apply at the next step; a
  // draft_model change loads the draft model (in-flight requests are aborted).
  SpeculativeConfig speculative;
  // kv_transfer_config (off by default): the connector of prefill/decode disaggregation
  // (engine/pd_engine.h); a colocated engine ignores it.
  KvTransferConfig kvTransfer;

  // Every knob against its range in the table. Throws lwb::Error naming the knob (vLLM
  // name), the value and the allowed range.
  void validate() const;
  // validate() plus the checks that need the model (vLLM's SchedulerConfig): max_model_len
  // within the model's max_position_embeddings; max_num_batched_tokens >= max_num_seqs;
  // without chunked prefill max_num_batched_tokens >= max_model_len. Returns the effective
  // max_model_len. Budget checks use the values resolved for `device` (default: CPU).
  int validateFor(int modelMaxPositions, const DeviceInfo& device = {}) const;
  // A copy with 0 (vLLM's default) in max_num_batched_tokens / max_num_seqs replaced by
  // the defaults for `device`; what the scheduler and the KV sizing use.
  EngineConfig resolvedFor(const DeviceInfo& device) const;
  bool structuralDiffers(const EngineConfig& other) const;  // a KV or executor knob differs
  bool executorDiffers(const EngineConfig& other) const;    // an executor knob differs
  // max_model_len, or the model's when 0; throws when above the model's.
  int effectiveMaxModelLen(int modelMaxPositions) const;
};

}  // namespace lwb
