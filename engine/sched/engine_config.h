#pragma once
// Every engine knob, with vLLM's names (snake_case in the UI, CLI and exports).
#include <cstdint>
#include <string>

#include "engine/exec/executor.h"

namespace lwb {

struct ModelConfig;

enum class SchedulingPolicy { Fcfs, Priority };
std::string schedulingPolicyName(SchedulingPolicy p);          // "fcfs" | "priority"
bool parseSchedulingPolicy(const std::string& s, SchedulingPolicy* out);

struct EngineConfig {
  // Applied at the next step boundary.
  int maxNumBatchedTokens = 2048;      // max_num_batched_tokens: token budget of one step
  int maxNumSeqs = 128;                // max_num_seqs: requests in one step
  bool enableChunkedPrefill = true;    // enable_chunked_prefill
  bool enablePrefixCaching = true;     // enable_prefix_caching
  int longPrefillTokenThreshold = 0;   // long_prefill_token_threshold (0 = off)
  SchedulingPolicy schedulingPolicy = SchedulingPolicy::Fcfs;  // scheduling_policy
  int maxModelLen = 0;                 // max_model_len (0 = the model's max_position_embeddings)
  // scheduler_reserve_full_isl: admit a waiting request only if blocks for its whole
  // current sequence can be allocated now (not just its first chunk).
  bool schedulerReserveFullIsl = true;

  // Structural: changing these rebuilds the KV pool (in-flight work drains or is aborted).
  int blockSize = 16;                  // block_size: tokens per KV block, a power of two
  int64_t kvCacheMemoryBytes = 0;      // kv_cache_memory_bytes (0 = default budget)
  int numGpuBlocksOverride = 0;        // num_gpu_blocks_override (0 = unset)
  ExecutorOptions executor;            // backend, threads, gpu_memory_utilization

  // Throws lwb::Error naming the knob (vLLM name), the value and the allowed range.
  void validate() const;
  // validate() plus the checks that need the model (vLLM's SchedulerConfig): max_model_len
  // within the model's; max_num_batched_tokens >= max_num_seqs; without chunked prefill
  // max_num_batched_tokens >= max_model_len. Returns the effective max_model_len.
  int validateFor(const ModelConfig& model) const;
  bool structuralDiffers(const EngineConfig& other) const;
  int effectiveMaxModelLen(const ModelConfig& model) const;
};

}  // namespace lwb
