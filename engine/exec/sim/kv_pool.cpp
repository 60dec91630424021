#include "engine/exec/sim/kv_pool.h"

#include <cmath>
#include <cstdio>

#include "engine/common/error.h"
#include "engine/config/knobs.h"

namespace lwb::sim {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / kGiB);
  return buf;
}

}  // namespace

std::string describeKvPool(int64_t numBlocks, int blockSize, int maxModelLen) {
  const long long tokens = static_cast<long long>(numBlocks) * blockSize;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "# GPU blocks: %lld\nGPU KV cache size: %lld tokens\nMaximum concurrency for %d tokens per request: %.2fx",
                static_cast<long long>(numBlocks), tokens, maxModelLen, double(tokens) / maxModelLen);
  return buf;
}

std::string KvPool::describe(int maxModelLen) const { return describeKvPool(numBlocks, blockSize, maxModelLen); }

double weightBytesPerRank(const SimModel& m) {
  return double(m.config.numParameters()) * m.weightBytesPerParam / m.tensorParallelSize;
}

double activationReserveBytes(const SimModel& m, const KvPoolInputs& in) {
  const ModelConfig& c = m.config;
  const double tp = m.tensorParallelSize;
  const double perRow = double(m.headsPerRank() + 2 * m.kvHeadsPerRank()) * c.headDim +
                        2.0 * c.intermediateSize / tp + 2.0 * c.hiddenSize;
  const double activations = double(in.maxNumBatchedTokens) * perRow * 2;
  const double logits = double(in.maxNumSeqs) * (c.vocabSize / tp) * 4;
  return kFixedReserveGiB * kGiB + activations + logits;
}

double kvBlockBytes(const SimModel& m, int blockSize) {
  return double(m.config.numHiddenLayers) * m.kvHeadsPerRank() * m.config.headDim * 2 * m.kvBytesPerElement * blockSize;
}

KvPool sizeKvPool(const SimModel& m, const HardwareProfile& hw, const KvPoolInputs& in) {
  check(in.gpuMemoryUtilization > 0 && in.gpuMemoryUtilization <= 1,
        std::string(knob::kGpuMemoryUtilization) + " " + std::to_string(in.gpuMemoryUtilization) +
            ": expected a fraction in (0, 1]");
  KvPool p;
  p.deviceBytes = hw.memoryGiB * kGiB * in.gpuMemoryUtilization;
  p.weightBytes = weightBytesPerRank(m);
  p.activationBytes = activationReserveBytes(m, in);
  p.blockBytes = kvBlockBytes(m, in.blockSize);
  p.blockSize = in.blockSize;
  const double free = p.deviceBytes - p.weightBytes - p.activationBytes;
  check(free >= p.blockBytes, [&] {
    const std::string tp(knob::kTensorParallelSize), util(knob::kGpuMemoryUtilization);
    return "the model does not fit " + hw.description + " at " + tp + " " + std::to_string(m.tensorParallelSize) +
           ": each GPU needs " + gib(p.weightBytes) + " of weights + " + gib(p.activationBytes) +
           " of activations and reserve, and has " + gib(p.deviceBytes) + " (" + gib(hw.memoryGiB * kGiB) +
           " × " + util + " " + std::to_string(in.gpuMemoryUtilization) + "); raise " + tp +
           " or use a larger device";
  });
  p.numBlocks = static_cast<int64_t>(std::floor(free / p.blockBytes));
  return p;
}

}  // namespace lwb::sim
