#pragma once
// The KV-cache pool of a simulated GPU deployment, sized as vLLM sizes it: the device's
// memory × gpu_memory_utilization, less the rank's weights (parameters × bytes per
// parameter / tensor_parallel_size), less an activation reserve for the batch limits,
// divided by the bytes of one block on one rank
//   layers × KV heads per rank × head_dim × 2 (K and V) × KV dtype bytes × block_size.
// The activation reserve stands for what vLLM's profiling run measures: a fixed
// kFixedReserveGiB (CUDA context, cuBLAS workspaces, CUDA graphs) plus one forward pass of
// max_num_batched_tokens rows: their q/k/v, the MLP's gate/up output and two hidden
// states in 16 bits, and the logits of max_num_seqs rows in float32.
#include <cstdint>
#include <string>

#include "engine/exec/sim/cost_model.h"

namespace lwb::sim {

constexpr double kFixedReserveGiB = 1.0;

struct KvPoolInputs {
  double gpuMemoryUtilization = 0.9;
  int blockSize = 16;
  int maxNumBatchedTokens = 8192;
  int maxNumSeqs = 256;
  int maxModelLen = 8192;
};

struct KvPool {
  double deviceBytes = 0;      // memory × utilization
  double weightBytes = 0;      // per rank
  double activationBytes = 0;  // the reserve, per rank
  double blockBytes = 0;       // one block on one rank
  int blockSize = 16;          // tokens per block
  int64_t numBlocks = 0;
  int64_t numTokens() const { return numBlocks * blockSize; }
  // Requests of max_model_len tokens that fit at once.
  double maxConcurrency(int maxModelLen) const { return double(numTokens()) / maxModelLen; }
  // vLLM's log lines: "# GPU blocks: N", "GPU KV cache size: N tokens", "Maximum
  // concurrency for L tokens per request: X.XXx".
  std::string describe(int maxModelLen) const;
};

// vLLM's log lines for a pool of `numBlocks` blocks of `blockSize` tokens.
std::string describeKvPool(int64_t numBlocks, int blockSize, int maxModelLen);

double weightBytesPerRank(const SimModel& model);
double activationReserveBytes(const SimModel& model, const KvPoolInputs& in);
double kvBlockBytes(const SimModel& model, int blockSize);
// Throws lwb::Error, naming the memory needed and available, when the weights and the
// reserve leave no room for a single block.
KvPool sizeKvPool(const SimModel& model, const HardwareProfile& hw, const KvPoolInputs& in);

}  // namespace lwb::sim
