// tryCreateCudaExecutor: dlopen()s the CUDA plugin, describes the model to it and wraps
// the plugin's executor so the Model outlives it. Compiled into every build, CPU-only
// ones too, so no CUDA header may appear here.
#include "engine/exec/cuda_loader.h"

#include <exception>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/model.h"

namespace lwb {
namespace {

LwbCudaTensor describe(const TensorView* t) {
  check(t != nullptr, "CUDA backend: the model has a missing tensor");
  LwbCudaTensor d{};
  d.data = t->data;
  d.dtype = int(t->dtype);  // LwbCudaDType mirrors lwb::DType
  d.rows = t->shape.empty() ? 1 : t->shape[0];
  d.cols = t->shape.size() > 1 ? t->shape[1] : 1;
  return d;
}

// Qwen2's biases and Qwen3's q/k norms when the family has them, else empty tensors
// (the plugin reads them only under desc.hasQkvBias / hasQkNorm).
LwbCudaLayer describe(const LlamaLayerWeights& w, const ModelConfig& c) {
  LwbCudaLayer l{describe(w.inputNorm), describe(w.q),    describe(w.k),
                 describe(w.v),         describe(w.o),    describe(w.postAttnNorm),
                 describe(w.gate),      describe(w.up),   describe(w.down), {}, {}, {}, {}, {}};
  if (c.qkvBias) l.qBias = describe(w.qBias), l.kBias = describe(w.kBias), l.vBias = describe(w.vBias);
  if (c.qkNorm) l.qNorm = describe(w.qNorm), l.kNorm = describe(w.kNorm);
  return l;
}

// Rethrows whatever the plugin threw as lwb::Error (its own lwb::Error type may not
// match ours across the RTLD_LOCAL boundary; std::exception always does).
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
}

// Owns the plugin's executor and keeps the Model (whose mmapped weights it was
// created from) alive at least as long.
class CudaExecutorHandle final : public Executor {
 public:
  CudaExecutorHandle(std::shared_ptr<const Model> model, Executor* inner, LwbCudaDestroyFn destroy)
      : model_(std::move(model)), inner_(inner), destroy_(destroy) {}
  ~CudaExecutorHandle() override { destroy_(inner_); }
  CudaExecutorHandle(const CudaExecutorHandle&) = delete;
  CudaExecutorHandle& operator=(const CudaExecutorHandle&) = delete;

  DeviceInfo deviceInfo() const override { return guarded([&] { return inner_->deviceInfo(); }); }
  size_t kvBytesPerBlock(int blockSize) const override {
    return guarded([&] { return inner_->kvBytesPerBlock(blockSize); });
  }
  size_t defaultKvBudgetBytes() const override { return guarded([&] { return inner_->defaultKvBudgetBytes(); }); }
  void allocateKvCache(int numBlocks, int blockSize) override {
    guarded([&] { inner_->allocateKvCache(numBlocks, blockSize); });
  }
  int numKvBlocks() const override { return guarded([&] { return inner_->numKvBlocks(); }); }
  int kvBlockSize() const override { return guarded([&] { return inner_->kvBlockSize(); }); }
  bool setBatchLimits(const BatchLimits& limits) override {
    return guarded([&] { return inner_->setBatchLimits(limits); });
  }
  void forward(const ForwardBatch& batch, ForwardResult& out) override {
    guarded([&] { inner_->forward(batch, out); });
  }

 private:
  std::shared_ptr<const Model> model_;
  Executor* inner_;
  LwbCudaDestroyFn destroy_;
};

}  // namespace

std::unique_ptr<Executor> tryCreateCudaExecutor(std::shared_ptr<const Model> model, const ExecutorOptions& options,
                                                std::string* reason) {
  check(model != nullptr, "CUDA backend: no model");
  const cudaplugin::Plugin* plugin = cudaplugin::openUsablePlugin(options.deviceIndex, reason);
  if (!plugin) return nullptr;

  const ModelConfig& c = model->config;
  const std::vector<float> invFreq = ropeInvFreq(c);
  std::vector<LwbCudaLayer> layers;
  for (const LlamaLayerWeights& w : model->llama.layers) layers.push_back(describe(w, c));
  LwbCudaModelDesc desc{};
  desc.hiddenSize = c.hiddenSize;
  desc.intermediateSize = c.intermediateSize;
  desc.numAttentionHeads = c.numAttentionHeads;
  desc.numKeyValueHeads = c.numKeyValueHeads;
  desc.headDim = c.headDim;
  desc.numHiddenLayers = c.numHiddenLayers;
  desc.vocabSize = c.vocabSize;
  desc.maxPositionEmbeddings = c.maxPositionEmbeddings;
  desc.rmsNormEps = c.rmsNormEps;
  desc.ropeInvFreq = invFreq.data();
  desc.embedTokens = describe(model->llama.embedTokens);
  desc.finalNorm = describe(model->llama.finalNorm);
  desc.lmHead = describe(model->llama.lmHead);
  desc.layers = layers.data();
  desc.hasQkvBias = c.qkvBias ? 1 : 0;
  desc.hasQkNorm = c.qkNorm ? 1 : 0;

  // Before any upload. A kv_cache_dtype the CUDA cache cannot hold: --backend cuda refuses
  // it; auto runs on the CPU and says why, as it does for quantized weights.
  try {
    checkCudaKvCacheDtype(options.kvCacheDtype, lwbCudaActivationDType(desc) == LWB_CUDA_F16);
  } catch (const Error& e) {
    if (options.backend != "auto") throw;
    if (reason) *reason = e.what();
    return nullptr;
  }
  LwbCudaOptions opts{};
  opts.deviceIndex = options.deviceIndex;
  opts.gpuMemoryUtilization = options.gpuMemoryUtilization;
  opts.enableCudaGraphs = 1;

  char error[1024] = {0};
  int status = LWB_CUDA_FAILED;
  Executor* inner = plugin->create(&desc, &opts, &status, error, sizeof error);
  if (!inner && status == LWB_CUDA_UNSUPPORTED) {  // not a failure: the caller uses the CPU
    if (reason) *reason = error;
    return nullptr;
  }
  if (!inner) throw Error(std::string("CUDA backend: ") + error);
  return std::make_unique<CudaExecutorHandle>(std::move(model), inner, plugin->destroy);
}

}  // namespace lwb
