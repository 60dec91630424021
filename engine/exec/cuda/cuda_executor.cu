#include "engine/exec/cuda/cuda_executor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "engine/exec/cuda/batch_plan.h"
#include "engine/exec/cuda/cuda_check.h"
#include "engine/exec/cuda/device_buffer.h"
#include "engine/exec/cuda/device_weights.h"
#include "engine/exec/cuda/graph_cache.h"
#include "engine/exec/cuda/kernels.h"

namespace lwb::cuda {
namespace {

constexpr int kPartitionSize = 512;     // keys per flash-decoding partition
constexpr int kMaxGraphParts = 16;      // graphs serve contexts up to 16 partitions
constexpr int kGraphBuckets[] = {1, 2, 4, 8, 16, 32, 64, 128};
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

// Grid sizes and GEMM row counts of one forward: exact counts when run eagerly, the
// bucket's capacities when captured into a graph.
struct LaunchSizes {
  int rows = 0, logits = 0, single = 0, tiles = 0, combine = 0;
};

// Query rows per prompt-attention block: a block holds rows x group warps, about 16.
int rowsPerTileFor(int group) { return std::max(1, 16 / group); }

template <typename T>
class CudaExecutor final : public Executor {
 public:
  CudaExecutor(const LwbCudaModelDesc& desc, const LwbCudaOptions& options) : shape_(validateModelDesc(desc)) {
    device_ = options.deviceIndex;
    util_ = options.gpuMemoryUtilization > 0 && options.gpuMemoryUtilization <= 1 ? options.gpuMemoryUtilization : 0.9;
    const char* env = std::getenv("LWB_CUDA_GRAPHS");
    graphs_ = options.enableCudaGraphs != 0 && !(env && std::strcmp(env, "0") == 0);
    LWB_CUDA_CHECK(cudaSetDevice(device_));
    cudaDeviceProp props{};
    LWB_CUDA_CHECK(cudaGetDeviceProperties(&props, device_));
    // Shown in the window's status bar: the one place a user sees which backend runs,
    // so it says what differs from the CPU (docs/cuda.md).
    name_ = std::string(props.name) + (std::is_same_v<T, __half> ? " (f16" : " (bf16") +
            ", logits vary with batch size)";
    LWB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    LWB_CUDA_CHECK(cudaEventCreateWithFlags(&metaCopied_, cudaEventDisableTiming));
    LWB_CUBLAS_CHECK(cublasCreate(&cublas_));
    LWB_CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
    workspace_.resize(kWorkspaceBytes);  // set explicitly: no allocation inside graph capture
    LWB_CUBLAS_CHECK(cublasSetWorkspace(cublas_, workspace_.as(), kWorkspaceBytes));
    invFreq_.resize(shape_.invFreq.size() * sizeof(float));
    LWB_CUDA_CHECK(cudaMemcpy(invFreq_.as(), shape_.invFreq.data(), invFreq_.bytes(), cudaMemcpyHostToDevice));
    uploadWeights(desc, shape_, weights_, stream_);
    rowsPerTile_ = rowsPerTileFor(shape_.group());
    graphParts_ = std::min(kMaxGraphParts, (shape_.maxPositions + kPartitionSize - 1) / kPartitionSize);
    ensureCapacity(LaunchSizes{256, 64, 256, 64, 64}, 256, 4096);
    limits_ = BatchLimits{4096, 256, shape_.maxPositions};  // until the engine says otherwise
  }

  ~CudaExecutor() override {
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    dropGraphs();
    cublasDestroy(cublas_);
    cudaEventDestroy(metaCopied_);
    cudaStreamDestroy(stream_);
  }

  DeviceInfo deviceInfo() const override {
    LWB_CUDA_CHECK(cudaSetDevice(device_));
    size_t freeBytes = 0, totalBytes = 0;
    LWB_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    return DeviceInfo{"cuda", name_, totalBytes, freeBytes};
  }

  size_t kvBytesPerBlock(int blockSize) const override {
    return size_t(2) * shape_.numLayers * size_t(blockSize) * shape_.kvSize() * sizeof(T);
  }

  // vLLM's rule: this instance may use total × gpu_memory_utilization; the KV pool gets
  // what weights, activations and the CUDA context leave of it. Buffers already sized
  // for the batch limits count as used; what they may still need is reserved.
  size_t defaultKvBudgetBytes() const override {
    const DeviceInfo info = deviceInfo();
    const double used = double(info.totalMemory - info.freeMemory) - double(kv_.bytes());
    const double budget = double(info.totalMemory) * util_ - used - double(activationReserve());
    return budget > 0 ? size_t(budget) : 0;
  }

  // Grows the buffers to what a step within `limits` can ask for now, so that the KV
  // pool sized afterwards leaves them room. If the pool already took that room, it is
  // released (the caller re-allocates it) and the growth retried.
  bool setBatchLimits(const BatchLimits& limits) override {
    check(limits.maxNumBatchedTokens > 0 && limits.maxNumSeqs > 0 && limits.maxModelLen > 0,
          "CUDA backend: batch limits must be positive");
    LWB_CUDA_CHECK(cudaSetDevice(device_));
    limits_ = limits;
    const Capacity c = capacityFor(limits);
    try {
      ensureCapacity(c.sizes, c.partials, 0);
      return false;
    } catch (const Error&) {
      if (numBlocks_ == 0) throw;
      cudaGetLastError();  // clear the failed allocation's error
    }
    LWB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    dropGraphs();
    kv_.release();
    numBlocks_ = 0;
    ensureCapacity(c.sizes, c.partials, 0);
    return true;
  }

  void allocateKvCache(int numBlocks, int blockSize) override {
    check(numBlocks > 0 && blockSize > 0, "CUDA backend: KV cache needs positive numBlocks and blockSize, found " +
                                              std::to_string(numBlocks) + " and " + std::to_string(blockSize));
    LWB_CUDA_CHECK(cudaSetDevice(device_));
    LWB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    dropGraphs();  // they point at the old pool
    kv_.release();
    numBlocks_ = 0;
    kv_.resize(kvBytesPerBlock(blockSize) * size_t(numBlocks));
    numBlocks_ = numBlocks;
    blockSize_ = blockSize;
  }

  int numKvBlocks() const override { return numBlocks_; }
  int kvBlockSize() const override { return blockSize_; }

  void forward(const ForwardBatch& batch, ForwardResult& out) override {
    out.vocabSize = shape_.vocab;
    out.numRows = 0;
    out.logits.clear();
    if (batch.numRows() == 0) return;
    check(numBlocks_ > 0, "CUDA forward: allocateKvCache was not called");
    LWB_CUDA_CHECK(cudaSetDevice(device_));
    const BatchPlan plan = planBatch(batch, PlanLimits{blockSize_, numBlocks_, shape_.maxPositions, shape_.vocab,
                                                       rowsPerTile_, kPartitionSize});
    const int numLogits = int(plan.logitRows.size());
    const int bucket = graphBucket(plan);
    LaunchSizes sizes{plan.numRows, numLogits, int(plan.single.size()), int(plan.tiles.size()),
                      int(plan.combine.size())};
    if (bucket > 0) sizes = LaunchSizes{bucket, bucket, bucket * graphParts_, 0, bucket};
    ensureCapacity(sizes, std::max(plan.numPartials, sizes.single), int(plan.blockTables.size()));

    // One pinned buffer, one copy; wait until the previous copy has left the buffer.
    LWB_CUDA_CHECK(cudaEventSynchronize(metaCopied_));
    writeMeta(plan, layout_, sizes.rows, std::max(sizes.logits, numLogits), metaHost_.as<int32_t>());
    LWB_CUDA_CHECK(cudaMemcpyAsync(metaDev_.as(), metaHost_.as(), size_t(layout_.totalInts) * 4,
                                   cudaMemcpyHostToDevice, stream_));
    LWB_CUDA_CHECK(cudaEventRecord(metaCopied_, stream_));

    if (bucket > 0) graphCache_.run(bucket, stream_, [&] { runLayers(sizes); });
    else runLayers(sizes);

    if (numLogits == 0) return;  // nothing to wait for: the next call orders after this one
    const size_t bytes = size_t(numLogits) * shape_.vocab * sizeof(float);
    LWB_CUDA_CHECK(cudaMemcpyAsync(logitsHost_.as(), logits_.as(), bytes, cudaMemcpyDeviceToHost, stream_));
    LWB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    out.numRows = numLogits;
    out.logits.assign(logitsHost_.as<float>(), logitsHost_.as<float>() + size_t(numLogits) * shape_.vocab);
  }

 private:
  // ---- the forward pass -----------------------------------------------------------
  void runLayers(const LaunchSizes& z) {
    const ModelShape& s = shape_;
    const int32_t* meta = metaDev_.as<int32_t>();
    const int32_t *numRows = meta, *numSingle = meta + 1, *numTiles = meta + 2, *numCombine = meta + 3,
                  *numLogits = meta + 4;
    const int32_t* rowMap = meta + layout_.logitRows;
    const auto* single = reinterpret_cast<const AttnWork*>(meta + layout_.single);
    const auto* tiles = reinterpret_cast<const AttnWork*>(meta + layout_.tiles);
    const auto* combine = reinterpret_cast<const CombineItem*>(meta + layout_.combine);
    const size_t slotsPerLayer = size_t(numBlocks_) * blockSize_ * s.kvSize();

    launchEmbedding(weights_.embed, meta + layout_.tokenIds, numRows, z.rows, s.hidden, residual_, stream_);
    for (int l = 0; l < s.numLayers; ++l) {
      const DeviceLayer<T>& w = weights_.layers[size_t(l)];
      T* kCache = kv_.as<T>() + size_t(2 * l) * slotsPerLayer;
      T* vCache = kCache + slotsPerLayer;
      // residual += previous layer's MLP output; x = input_layernorm(residual)
      launchAddRmsNorm<T>(residual_, l ? delta_ : nullptr, w.inputNorm, nullptr, numRows, z.rows, s.hidden, s.eps,
                          true, x_, stream_);
      gemm<T>(cublas_, x_, z.rows, s.hidden, w.qkv, s.qkvSize(), qkv_, false);
      // + q/k/v biases (Qwen2), per-head q/k RMSNorm (Qwen3), RoPE, K/V into the cache
      const RopeShape rope{s.numHeads, s.numKvHeads, s.headDim, invFreq_.as<float>(), w.qkvBias, w.qNorm, w.kNorm,
                           s.eps};
      launchRopeCache<T>(qkv_, meta + layout_.positions, meta + layout_.slots, numRows, z.rows, rope, q_, kCache,
                         vCache, stream_);
      const AttnArgs<T> a{q_, kCache, vCache, meta + layout_.blockTables, attn_, partAcc_, partMl_,
                          s.numHeads, s.numKvHeads, s.headDim, blockSize_, 1.f / std::sqrt(float(s.headDim))};
      launchAttention<T>(a, single, numSingle, z.single, 1, stream_);
      launchAttention<T>(a, tiles, numTiles, z.tiles, rowsPerTile_, stream_);
      launchAttentionCombine<T>(a, combine, numCombine, z.combine, stream_);
      gemm<T>(cublas_, attn_, z.rows, s.qSize(), w.o, s.hidden, delta_, false);
      // residual += attention output; x = post_attention_layernorm(residual)
      launchAddRmsNorm<T>(residual_, delta_, w.postAttnNorm, nullptr, numRows, z.rows, s.hidden, s.eps, true, x_,
                          stream_);
      gemm<T>(cublas_, x_, z.rows, s.hidden, w.gateUp, 2 * s.inter, gateUp_, false);
      launchSwiGlu<T>(gateUp_, numRows, z.rows, s.inter, act_, stream_);
      gemm<T>(cublas_, act_, z.rows, s.inter, w.down, s.hidden, delta_, false);
    }
    // Logits only for the rows that need them: gather (+ last residual add) and norm
    // those rows, then one GEMM with fp32 output.
    launchAddRmsNorm<T>(residual_, delta_, weights_.finalNorm, rowMap, numLogits, z.logits, s.hidden, s.eps, false,
                        xLogits_, stream_);
    gemm<T>(cublas_, xLogits_, z.logits, s.hidden, weights_.lmHead, s.vocab, logits_.as(), true);
  }

  // ---- CUDA graphs for decode-only batches ------------------------------------------
  int graphBucket(const BatchPlan& plan) const {
    if (!graphs_ || !plan.decodeOnly || plan.maxPartsPerRow > graphParts_) return 0;
    for (int b : kGraphBuckets)
      if (plan.numRows <= b) return b;
    return 0;
  }

  void dropGraphs() { graphCache_.clear(); }

  // ---- buffers ----------------------------------------------------------------------
  size_t bytesPerRow() const {
    const ModelShape& s = shape_;
    return sizeof(float) * (size_t(s.hidden) + s.qSize()) +
           sizeof(T) * (size_t(2) * s.hidden + s.qkvSize() + s.qSize() + 3 * size_t(s.inter));
  }

  // The largest launch a step within `b` can make: eager steps of up to
  // max_num_batched_tokens rows and max_num_seqs logit rows, decode rows split into
  // partitions up to max_model_len (flash-decoding partials), and the graph buckets.
  struct Capacity {
    LaunchSizes sizes;
    int partials = 0;
  };
  // Split rows are bounded twice: max_num_seqs rows of max_model_len each, and the
  // contexts the KV pool can hold at all (one partial per 512 cached tokens, plus one
  // per row), whichever is smaller.
  Capacity capacityFor(const BatchLimits& b) const {
    const int rows = b.maxNumBatchedTokens, seqs = std::max(1, std::min(b.maxNumSeqs, rows));
    const int64_t parts = (std::min(b.maxModelLen, shape_.maxPositions) + kPartitionSize - 1) / kPartitionSize;
    const int64_t poolTokens = int64_t(deviceInfo().totalMemory / std::max<size_t>(kvBytesPerBlock(1), 1));
    const int64_t splitItems = std::min(int64_t(seqs) * std::max<int64_t>(parts, 1), poolTokens / kPartitionSize + seqs);
    int bucket = 0;
    if (graphs_)
      for (int g : kGraphBuckets)
        if (bucket < std::min(seqs, 128)) bucket = g;
    Capacity c;
    c.sizes.rows = std::max(rows, bucket);
    c.sizes.logits = std::max(seqs, bucket);
    c.sizes.single = int(std::max<int64_t>(splitItems, int64_t(bucket) * graphParts_));
    c.sizes.tiles = (rows + rowsPerTile_ - 1) / rowsPerTile_ + seqs;
    c.sizes.combine = std::max(seqs, bucket);
    c.partials = c.sizes.single;
    return c;
  }

  // Device bytes of the row, logit and partial buffers at these capacities.
  size_t bufferBytes(int rows, int logits, int partials) const {
    const ModelShape& s = shape_;
    return size_t(rows) * bytesPerRow() + size_t(logits) * (size_t(s.hidden) * sizeof(T) + size_t(s.vocab) * 4) +
           size_t(partials) * s.numHeads * (size_t(s.headDim) + 2) * 4;
  }

  // What the buffers may still grow by for the limits in force, plus room for the CUDA
  // context, cuBLAS and graphs.
  size_t activationReserve() const {
    const Capacity c = capacityFor(limits_);
    const size_t need = bufferBytes(std::max(c.sizes.rows, rowsCap_), std::max(c.sizes.logits, logitsCap_),
                                    std::max(c.partials, partCap_));
    return need - bufferBytes(rowsCap_, logitsCap_, partCap_) + (size_t(512) << 20);
  }

  static int grow(int have, int need) { return need <= have ? have : std::max(need, 2 * have); }

  // Grows (never shrinks) every buffer a forward of these sizes needs. Growing moves
  // buffers, so captured graphs are dropped.
  void ensureCapacity(const LaunchSizes& z, int partials, int blockTableInts) {
    const bool ok = z.rows <= rowsCap_ && z.logits <= logitsCap_ && partials <= partCap_ &&
                    layout_.fits(z.rows, z.logits, blockTableInts, z.single, z.tiles, z.combine);
    if (ok) return;
    LWB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    dropGraphs();
    const ModelShape& s = shape_;
    // A capacity is 0 while its buffer is being replaced: a failed (out of memory)
    // resize leaves no buffer, and the next call must not believe there is one.
    if (z.rows > rowsCap_) {
      const int cap = grow(rowsCap_, z.rows);
      rowsCap_ = 0;
      const size_t r = size_t(cap);
      rowBuffers_.resize(r * bytesPerRow() + 16 * 256);
      rowsCap_ = cap;
      char* p = rowBuffers_.as<char>();
      auto take = [&p](size_t bytes) {
        char* at = p;
        p += (bytes + 255) / 256 * 256;
        return at;
      };
      residual_ = reinterpret_cast<float*>(take(r * s.hidden * sizeof(float)));
      q_ = reinterpret_cast<float*>(take(r * s.qSize() * sizeof(float)));
      x_ = reinterpret_cast<T*>(take(r * s.hidden * sizeof(T)));
      delta_ = reinterpret_cast<T*>(take(r * s.hidden * sizeof(T)));
      qkv_ = reinterpret_cast<T*>(take(r * s.qkvSize() * sizeof(T)));
      attn_ = reinterpret_cast<T*>(take(r * s.qSize() * sizeof(T)));
      gateUp_ = reinterpret_cast<T*>(take(r * 2 * s.inter * sizeof(T)));
      act_ = reinterpret_cast<T*>(take(r * s.inter * sizeof(T)));
    }
    if (z.logits > logitsCap_) {
      const int cap = grow(logitsCap_, z.logits);
      logitsCap_ = 0;
      xLogitsBuffer_.resize(size_t(cap) * s.hidden * sizeof(T));
      xLogits_ = xLogitsBuffer_.as<T>();
      logits_.resize(size_t(cap) * s.vocab * sizeof(float));
      logitsHost_.resize(logits_.bytes());
      logitsCap_ = cap;
    }
    if (partials > partCap_) {
      const int cap = grow(partCap_, partials);
      partCap_ = 0;
      partAccBuffer_.resize(size_t(cap) * s.numHeads * s.headDim * sizeof(float));
      partMlBuffer_.resize(size_t(cap) * s.numHeads * 2 * sizeof(float));
      partCap_ = cap;
      partAcc_ = partAccBuffer_.as<float>();
      partMl_ = partMlBuffer_.as<float>();
    }
    const MetaLayout& m = layout_;
    layout_ = MetaLayout::withCapacities(grow(m.rowsCap, z.rows), grow(m.logitsCap, z.logits),
                                         grow(m.btCap, blockTableInts), grow(m.singleCap, z.single),
                                         grow(m.tilesCap, z.tiles), grow(m.combineCap, z.combine));
    metaDev_.resize(size_t(layout_.totalInts) * 4);
    metaHost_.resize(size_t(layout_.totalInts) * 4);
  }

  ModelShape shape_;
  int device_ = 0;
  double util_ = 0.9;
  bool graphs_ = true;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t metaCopied_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  DeviceBuffer workspace_, invFreq_;
  DeviceWeights<T> weights_;
  int rowsPerTile_ = 1, graphParts_ = 1;
  BatchLimits limits_;

  DeviceBuffer kv_;  // [layers][K, V][numBlocks * blockSize slots][numKvHeads * headDim]
  int numBlocks_ = 0, blockSize_ = 16;

  int rowsCap_ = 0, logitsCap_ = 0, partCap_ = 0;
  DeviceBuffer rowBuffers_, xLogitsBuffer_, logits_, partAccBuffer_, partMlBuffer_;
  float *residual_ = nullptr, *q_ = nullptr, *partAcc_ = nullptr, *partMl_ = nullptr;
  T *x_ = nullptr, *delta_ = nullptr, *qkv_ = nullptr, *attn_ = nullptr, *gateUp_ = nullptr, *act_ = nullptr,
    *xLogits_ = nullptr;
  PinnedBuffer logitsHost_;

  MetaLayout layout_;
  DeviceBuffer metaDev_;
  PinnedBuffer metaHost_;

  GraphCache graphCache_;  // decode-only forwards by bucket (graph_cache.h)
};

}  // namespace

std::unique_ptr<Executor> createCudaExecutor(const LwbCudaModelDesc& desc, const LwbCudaOptions& options) {
  const ModelShape shape = validateModelDesc(desc);
  int optin = 0;
  LWB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, options.deviceIndex));
  const int group = shape.group();
  if (const std::string why = attentionUnsupportedReason(shape.headDim, group, rowsPerTileFor(group) * group, optin);
      !why.empty())
    throw UnsupportedModel("the CUDA backend does not support " + why);
  if (chooseActivationDType(desc) == LWB_CUDA_F16) return std::make_unique<CudaExecutor<__half>>(desc, options);
  return std::make_unique<CudaExecutor<__nv_bfloat16>>(desc, options);
}

}  // namespace lwb::cuda
