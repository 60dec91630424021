#include "engine/exec/sim/sim_executor.h"

#include <algorithm>
#include <cmath>

#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/exec/batch_check.h"
#include "engine/exec/sim/kv_pool.h"
#include "engine/model/model.h"

namespace lwb {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class SimExecutor final : public Executor {
 public:
  SimExecutor(std::shared_ptr<const Model> model, const ExecutorOptions& o)
      : model_(std::move(model)), options_(o), hw_(sim::loadHardwareProfile(o.simHardware)) {
    check(o.quantization.empty() || o.quantization == "none",
          std::string(knob::kQuantization) + " " + o.quantization +
              ": the sim backend prices 16-bit weights; quantized CPU weights are not simulated");
    check(!hw_.isCpu() || o.tensorParallelSize == 1,
          std::string(knob::kTensorParallelSize) + " " + std::to_string(o.tensorParallelSize) + ": " + hw_.source +
              " is a CPU profile, which simulates one device (" + std::string(knob::kTensorParallelSize) + " 1)");
    sim_ = simModelFor(model_->config, o, hw_);
    stopIds_ = model_->stopTokenIds();
  }

  DeviceInfo deviceInfo() const override { return simulatedDeviceInfo(hw_, sim_); }

  size_t kvBytesPerBlock(int blockSize) const override { return size_t(sim::kvBlockBytes(sim_, blockSize)); }

  // A GPU: what vLLM's profiling leaves (kv_pool.h); a CPU profile: the memory it names
  // less the weights, as the CPU backend's budget is the free memory less a margin.
  size_t defaultKvBudgetBytes() const override {
    if (hw_.isCpu()) return size_t(std::max(0.0, hw_.memoryGiB * kGiB * 0.9 - sim::weightBytesPerRank(sim_)));
    const sim::KvPool pool = sim::sizeKvPool(sim_, hw_, poolInputs());
    return size_t(pool.deviceBytes - pool.weightBytes - pool.activationBytes);
  }

  void allocateKvCache(int numBlocks, int blockSize) override {
    numBlocks_ = numBlocks;
    blockSize_ = blockSize;
  }
  int numKvBlocks() const override { return numBlocks_; }
  int kvBlockSize() const override { return blockSize_; }
  bool holdsKvData() const override { return false; }
  void readKvBlock(int, char*) const override {}
  void writeKvBlock(int, const char*) override {}

  bool setBatchLimits(const BatchLimits& limits) override {
    limits_ = limits;
    if (!hw_.isCpu()) sim::sizeKvPool(sim_, hw_, poolInputs());  // a model that does not fit: the error now
    return false;
  }

  void forward(const ForwardBatch& batch, ForwardResult& out) override {
    validateBatch(batch, {model_->config.vocabSize, model_->config.maxPositionEmbeddings, numBlocks_, blockSize_});
    out.predictedSeconds = sim::predictStep(sim_, hw_, stepShapeOf(batch)).total() * 1e-3;
    out.numRows = batch.numLogitRows();
    out.vocabSize = model_->config.vocabSize;
    out.logits.clear();
    out.tokenIds.clear();
    for (const SeqSlice& s : batch.seqs) {
      if (!s.needLogits) continue;
      for (int i = 0; i < s.numLogits; ++i) {
        const int position = s.numCachedTokens + s.numTokens - s.numLogits + i + 1;
        out.tokenIds.push_back(tokenFor(s.requestId, position));
      }
    }
  }

 private:
  sim::KvPoolInputs poolInputs() const {
    sim::KvPoolInputs in;
    in.gpuMemoryUtilization = options_.gpuMemoryUtilization;
    in.maxNumBatchedTokens = std::max(limits_.maxNumBatchedTokens, 1);
    in.maxNumSeqs = std::max(limits_.maxNumSeqs, 1);
    in.maxModelLen = std::max(limits_.maxModelLen, 1);
    return in;
  }

  int tokenFor(int64_t requestId, int position) const {
    const int vocab = model_->config.vocabSize;
    int id = int(mix(uint64_t(requestId) * 0x100000001B3ull + uint64_t(position)) % uint64_t(vocab));
    while (std::binary_search(stopIds_.begin(), stopIds_.end(), id)) id = (id + 1) % vocab;
    return id;
  }

  std::shared_ptr<const Model> model_;
  ExecutorOptions options_;
  sim::HardwareProfile hw_;
  sim::SimModel sim_;
  std::vector<int> stopIds_;  // sorted
  BatchLimits limits_;
  int numBlocks_ = 0, blockSize_ = 16;
};

}  // namespace

sim::SimModel simModelFor(const ModelConfig& config, const ExecutorOptions& options, const sim::HardwareProfile& hw) {
  const std::string& kv = options.kvCacheDtype;
  findKnob(knob::kKvCacheDtype)->check(kv);
  return sim::makeSimModel(config, options.tensorParallelSize, "auto", kv == "auto" && hw.isCpu() ? "float32" : kv);
}

DeviceInfo simulatedDeviceInfo(const sim::HardwareProfile& hw, const sim::SimModel& model) {
  DeviceInfo d;
  d.backend = "sim";
  d.name = hw.description + (model.tensorParallelSize > 1 ? " x" + std::to_string(model.tensorParallelSize) : "") +
           " (simulated)";
  d.totalMemory = size_t(hw.memoryGiB * kGiB);
  d.freeMemory = d.totalMemory;
  d.weightType = "BF16";
  d.weightBytes = size_t(sim::weightBytesPerRank(model));
  d.simulatedGpu = !hw.isCpu();
  return d;
}

sim::StepShape stepShapeOf(const ForwardBatch& batch) {
  sim::StepShape shape;
  shape.seqs.reserve(batch.seqs.size());
  for (const SeqSlice& s : batch.seqs) shape.seqs.push_back({s.numTokens, s.numCachedTokens, s.needLogits});
  return shape;
}

std::unique_ptr<Executor> createSimExecutor(std::shared_ptr<const Model> model, const ExecutorOptions& options) {
  return std::make_unique<SimExecutor>(std::move(model), options);
}

}  // namespace lwb
