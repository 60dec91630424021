// The CPU executor: one forward pass of a Llama-family model over a flattened batch, with
// a paged f32 or bf16 KV cache (layout in attention.h; kv_cache_dtype). Per layer:
//   xn = RMSNorm(h); q,k,v = xn·Wqkvᵀ (+ b_qkv, Qwen2); per-head RMSNorm(q,k) (Qwen3);
//   RoPE(q,k); K/V → cache; a = attention(q, cache)
//   h += a·Woᵀ; xn = RMSNorm(h); h += (silu(xn·Wgᵀ) ⊙ xn·Wuᵀ)·Wdᵀ
// then logits = RMSNorm(h_last)·lm_headᵀ for the rows that need them.
#include "engine/exec/cpu/cpu_executor.h"

#include <cstring>
#include <algorithm>
#include <deque>
#include <map>
#include <memory>

#include "engine/common/error.h"
#include "engine/exec/batch_check.h"
#include "engine/exec/cpu/attention.h"
#include "engine/exec/cpu/cpu_system_info.h"
#include "engine/exec/cpu/gemm.h"
#include "engine/exec/cpu/gemm_quant.h"
#include "engine/exec/cpu/norm_rope.h"
#include "engine/model/model.h"
#include "engine/model/quant.h"

namespace lwb {
namespace {

// Every Linear weight is repacked into panels once, here; the mmapped original is not
// read again (the embedding table is, a row per token).
struct LayerMatrices {
  WeightVector inputNorm, postAttnNorm;
  PackedMatrix q, k, v, o, gate, up, down;
  std::vector<float> qBias, kBias, vBias;  // empty unless config.qkvBias (f32 copies)
  WeightVector qNorm, kNorm;               // size 0 unless config.qkNorm
};

WeightVector weightVector(const TensorView* t, const std::string& what) {
  check(t != nullptr && t->shape.size() == 1, "CPU executor: " + what + ": expected a 1-D weight");
  check(!t->isQuantized(), t->file + ": tensor " + t->name + " (" + what + ") is stored as " + ggmlTypeName(t->blockType) +
                               ", expected F32, F16 or BF16");
  return {t->data, t->dtype, int(t->shape[0])};
}

// A bias in f32 (empty for a null view): added to every row, so converted once.
std::vector<float> biasVector(const TensorView* t) {
  if (t == nullptr) return {};
  const WeightVector w = weightVector(t, "bias");
  std::vector<float> out(size_t(w.size));
  for (size_t i = 0; i < out.size(); ++i) out[i] = weightValue(w.data, w.dtype, i);
  return out;
}

void addBias(float* row, const std::vector<float>& bias) {
  for (size_t i = 0; i < bias.size(); ++i) row[i] += bias[i];
}

WeightMatrix requireMatrix(const TensorView* t, const std::string& what) {
  check(t != nullptr, "CPU executor: missing weight " + what);
  return weightMatrix(*t);
}

// Activations of one forward pass, [numRows, width] each; grown, never shrunk.
struct Activations {
  std::vector<float> hidden, normed, q, k, v, attn, proj, gate, up, logitRows;
};

class CpuExecutor final : public Executor {
 public:
  CpuExecutor(std::shared_ptr<const Model> model, int numThreads, GgmlType quantization, DType kvType);
  DeviceInfo deviceInfo() const override;
  size_t kvBytesPerBlock(int blockSize) const override;
  size_t defaultKvBudgetBytes() const override;
  void allocateKvCache(int numBlocks, int blockSize) override;
  int numKvBlocks() const override { return numBlocks_; }
  int kvBlockSize() const override { return blockSize_; }
  bool setBatchLimits(const BatchLimits& limits) override;
  void readKvBlock(int blockId, char* out) const override;
  void writeKvBlock(int blockId, const char* data) override;
  void forward(const ForwardBatch& batch, ForwardResult& out) override;
  // The engine's sampling and detokenization of a step's rows, on every thread of the pool:
  // on the caller alone the workers would wait for them (`bench_cpu --only engine` measures
  // what they add to a step).
  void runHostTasks(int n, const std::function<void(int i)>& fn) override {
    pool_.parallelFor(n, [&](int i, int) { fn(i); });
  }

 private:
  void reserveActivations(int numRows, int numLogitRows, int maxModelLen);
  void ensureRopeTable(int numPositions);
  void forRows(int numRows, int width, const std::function<void(int row)>& fn);
  void forRowSpans(int numRows, int width, const std::function<void(int begin, int end)>& fn);
  void embed(const ForwardBatch& batch);
  void runLayer(size_t layer, int numRows, const std::vector<RowPosition>& rows, bool rowPerSequence);
  void finishRow(const LayerMatrices& w, int r, const RowPosition& row, const AttentionShape& shape, const KvLayer& cache);
  void computeLogits(const ForwardBatch& batch, ForwardResult& out);
  size_t weightBytes() const;
  std::string describeWeightTypes() const;
  PackedMatrix packStored(const TensorView& t);
  WeightVector normVector(const TensorView* t, const std::string& what);

  std::shared_ptr<const Model> model_;
  const ModelConfig& cfg_;
  const CpuKernels& kernels_;
  ThreadPool pool_;
  std::vector<float> invFreq_;
  // RoPE's cos and sin of positions [0, ropePositions_), [position][headDim / 2] each
  // (ropeAngles): filled up to max_model_len (at most kEagerRopePositions) while loading
  // (setBatchLimits), grown if a step goes further, so that steps do not compute them (a
  // sincos in double per pair).
  std::vector<float> ropeCos_, ropeSin_;
  int ropePositions_ = 0;
  WeightArena arena_;  // every packed weight below: on huge pages where the kernel allows (weight_arena.h)
  std::vector<LayerMatrices> layers_;
  WeightVector finalNorm_;
  PackedMatrix lmHead_;
  size_t packedBytes_ = 0;
  bool weightsStream_ = false;  // packedBytes_ outgrow the L3: each step streams them (GemmArgs)
  std::map<std::string, int> weightTypes_;  // type name → Linear weights held in it
  int numBlocks_ = 0, blockSize_ = 0;
  DType kvType_ = DType::F32;                              // F32, BF16, F8E4M3 or F8E5M2 (kv_cache_dtype)
  // Per layer, uninitialised until written; on huge pages where the kernel allows, as the
  // weights are (weight_arena.h): one decode row's attention reads each (block, KV head)
  // once, a page of its own on 4 KiB pages, and at 2 MiB it reads them 10 % faster
  // (`bench_quant_kernels --attention-dram`).
  std::vector<std::shared_ptr<uint8_t>> kCache_, vCache_;
  Activations act_;
  std::vector<std::vector<float>> attnScratch_;
  std::deque<std::vector<float>> widenedNorms_;  // 16-bit norm weights in f32 (normVector); never moved
};

CpuExecutor::CpuExecutor(std::shared_ptr<const Model> model, int numThreads, GgmlType quantization, DType kvType)
    : model_(std::move(model)), cfg_(model_->config), kernels_(cpuKernels(detectIsa())), pool_(numThreads), kvType_(kvType) {
  check(kvType == DType::F32 || kvType == DType::BF16 || kvType == DType::F8E4M3 || kvType == DType::F8E5M2,
        "CPU executor: the KV cache is stored as f32, bf16 or fp8 (e4m3, e5m2)");
  check(cfg_.headDim > 0 && cfg_.headDim % 2 == 0, "CPU executor: head_dim must be even and positive");
  check(cfg_.numKeyValueHeads > 0 && cfg_.numAttentionHeads % cfg_.numKeyValueHeads == 0,
        "CPU executor: num_attention_heads must be a multiple of num_key_value_heads");
  check(int(model_->llama.layers.size()) == cfg_.numHiddenLayers, "CPU executor: layer count does not match the config");
  invFreq_ = ropeInvFreq(cfg_);
  check(int(invFreq_.size()) == cfg_.headDim / 2, "CPU executor: ropeInvFreq returned the wrong size");
  auto pack = [&](const TensorView* t, const std::string& what) {
    if (t != nullptr && t->isQuantized()) return packStored(*t);
    const WeightMatrix w = requireMatrix(t, what);
    const GgmlType type = quantTypeFor(quantization, w.cols);
    PackedMatrix m = type == GgmlType::F32 ? packMatrix(pool_, w, &arena_) : quantizeMatrix(pool_, w, type, &arena_);
    ++weightTypes_[type == GgmlType::F32 ? std::string(dtypeName(w.dtype)) : ggmlTypeName(type)];
    packedBytes_ += m.bytes();
    return m;
  };
  for (const LlamaLayerWeights& w : model_->llama.layers) {
    layers_.push_back({normVector(w.inputNorm, "input_layernorm"), normVector(w.postAttnNorm, "post_attention_layernorm"),
                       pack(w.q, "q_proj"), pack(w.k, "k_proj"), pack(w.v, "v_proj"), pack(w.o, "o_proj"),
                       pack(w.gate, "gate_proj"), pack(w.up, "up_proj"), pack(w.down, "down_proj"),
                       biasVector(w.qBias), biasVector(w.kBias), biasVector(w.vBias), {}, {}});
    check(!cfg_.qkvBias || layers_.back().qBias.size() == size_t(cfg_.qSize()), "CPU executor: missing q/k/v biases");
    if (cfg_.qkNorm) {
      layers_.back().qNorm = normVector(w.qNorm, "q_norm");
      layers_.back().kNorm = normVector(w.kNorm, "k_norm");
    }
  }
  finalNorm_ = normVector(model_->llama.finalNorm, "model.norm");
  lmHead_ = pack(model_->llama.lmHead, "lm_head");
  const size_t l3 = l3CacheBytes();
  weightsStream_ = l3 > 0 && packedBytes_ > l3;
  check(model_->llama.embedTokens != nullptr, "CPU executor: missing weight embed_tokens");
}

// A GGUF weight already in ggml blocks: kept in its type, or refused by name when no
// kernel runs it (never a silent slow path).
PackedMatrix CpuExecutor::packStored(const TensorView& t) {
  check(t.shape.size() == 2, t.file + ": tensor " + t.name + ": expected a 2-D weight, found " + shapeToString(t.shape));
  check(hasQuantKernels(t.blockType), t.file + ": tensor " + t.name + " is stored as " + ggmlTypeName(t.blockType) +
                                          ", which the CPU kernels do not run (they run " + quantKernelTypeNames() + ")");
  PackedMatrix m = copyQuantizedMatrix(t.data, t.blockType, int(t.shape[0]), int(t.shape[1]), &arena_);
  ++weightTypes_[ggmlTypeName(t.blockType)];
  packedBytes_ += m.bytes();
  return m;
}

// "Q4_K", or "Q4_K+Q8_0" when some matrices fell back: the most common type first.
std::string CpuExecutor::describeWeightTypes() const {
  std::vector<std::pair<int, std::string>> byCount;
  for (const auto& [name, count] : weightTypes_) byCount.push_back({-count, name});
  std::sort(byCount.begin(), byCount.end());
  std::string out;
  for (const auto& [count, name] : byCount) out += (out.empty() ? "" : "+") + name;
  return out;
}

DeviceInfo CpuExecutor::deviceInfo() const {
  DeviceInfo info;
  info.backend = "cpu";
  info.name = cpuModelName() + " (" + std::to_string(pool_.numThreads()) + " threads, " + isaName(kernels_.isa) + ")";
  const MemoryInfo mem = readMemoryInfo();
  info.totalMemory = mem.total;
  info.freeMemory = mem.available;
  info.weightType = describeWeightTypes();
  info.weightBytes = packedBytes_;
  return info;
}

size_t CpuExecutor::kvBytesPerBlock(int blockSize) const {
  return size_t(cfg_.numHiddenLayers) * 2 * size_t(blockSize) * size_t(cfg_.kvSize()) * dtypeSize(kvType_);
}

size_t CpuExecutor::weightBytes() const {
  size_t bytes = 0;
  for (const auto& [name, view] : model_->weights ? model_->weights->all() : std::map<std::string, TensorView>{}) {
    bytes += view.numBytes();
  }
  return bytes;
}

// A norm's weights for rmsNormRows: f32 as stored, 16-bit ones widened here once (exactly,
// as weightValue would per element in every step).
WeightVector CpuExecutor::normVector(const TensorView* t, const std::string& what) {
  const WeightVector stored = weightVector(t, what);
  if (stored.dtype == DType::F32) return stored;
  std::vector<float>& wide = widenedNorms_.emplace_back(size_t(stored.size));
  for (int i = 0; i < stored.size; ++i) wide[size_t(i)] = weightValue(stored.data, stored.dtype, size_t(i));
  return {wide.data(), DType::F32, stored.size};
}

// Half of what is available once the weights (and their packed copy) are resident, keeping 512 MiB for
// activations and the rest of the process, capped at 16 GiB.
size_t CpuExecutor::defaultKvBudgetBytes() const {
  const size_t available = readMemoryInfo().available;
  const size_t reserved = weightBytes() + packedBytes_ + (size_t(512) << 20);
  const size_t spare = available > reserved ? available - reserved : 0;
  return std::min(spare / 2, size_t(16) << 30);
}

void CpuExecutor::allocateKvCache(int numBlocks, int blockSize) {
  check(numBlocks > 0 && blockSize > 0, "allocateKvCache: numBlocks and blockSize must be positive, found " +
                                            std::to_string(numBlocks) + " and " + std::to_string(blockSize));
  kCache_.clear();
  vCache_.clear();
  const size_t perLayer = size_t(numBlocks) * size_t(blockSize) * size_t(cfg_.kvSize()) * dtypeSize(kvType_);
  WeightArena pages(0);  // a chunk per layer's K and V (where they fill whole huge pages)
  for (int l = 0; l < cfg_.numHiddenLayers; ++l) {
    kCache_.push_back(pages.allocate(perLayer, "the KV cache"));
    vCache_.push_back(pages.allocate(perLayer, "the KV cache"));
  }
  numBlocks_ = numBlocks;
  blockSize_ = blockSize;
}

// A block is contiguous in each layer's K and V ([numBlocks, numKvHeads, headDim,
// blockSize]): the transfer's bytes are layer by layer, K then V.
void CpuExecutor::readKvBlock(int blockId, char* out) const {
  check(blockId >= 0 && blockId < numBlocks_, "readKvBlock: block " + std::to_string(blockId) + " out of range");
  const size_t bytes = size_t(blockSize_) * size_t(cfg_.kvSize()) * dtypeSize(kvType_);
  for (size_t l = 0; l < kCache_.size(); ++l) {
    std::memcpy(out + 2 * l * bytes, kCache_[l].get() + size_t(blockId) * bytes, bytes);
    std::memcpy(out + (2 * l + 1) * bytes, vCache_[l].get() + size_t(blockId) * bytes, bytes);
  }
}

void CpuExecutor::writeKvBlock(int blockId, const char* data) {
  check(blockId >= 0 && blockId < numBlocks_, "writeKvBlock: block " + std::to_string(blockId) + " out of range");
  const size_t bytes = size_t(blockSize_) * size_t(cfg_.kvSize()) * dtypeSize(kvType_);
  for (size_t l = 0; l < kCache_.size(); ++l) {
    std::memcpy(kCache_[l].get() + size_t(blockId) * bytes, data + 2 * l * bytes, bytes);
    std::memcpy(vCache_[l].get() + size_t(blockId) * bytes, data + (2 * l + 1) * bytes, bytes);
  }
}

// Row-wise work in tasks of ~3k elements, whole groups of kNormGroup rows: fn(begin, end)
// per task. A decode step of 8 rows runs its norms on the caller alone, 16 rows on two
// threads: tasks small enough to share a mid-sized batch, large enough that a small one
// takes no parallel region (`bench_cpu --only austen --runs "11m bf16" --batches
// 8,16,32,64` measures it).
constexpr int kRowWorkGrain = 3072;
void CpuExecutor::forRowSpans(int numRows, int width, const std::function<void(int begin, int end)>& fn) {
  const int rowsPerTask = (std::max(1, kRowWorkGrain / std::max(1, width)) + kNormGroup - 1) / kNormGroup * kNormGroup;
  const int numTasks = (numRows + rowsPerTask - 1) / rowsPerTask;
  pool_.parallelFor(numTasks, [&](int task, int) { fn(task * rowsPerTask, std::min(numRows, (task + 1) * rowsPerTask)); });
}

void CpuExecutor::forRows(int numRows, int width, const std::function<void(int row)>& fn) {
  forRowSpans(numRows, width, [&](int begin, int end) {
    for (int r = begin; r < end; ++r) fn(r);
  });
}

void CpuExecutor::embed(const ForwardBatch& batch) {
  const TensorView& table = *model_->llama.embedTokens;
  const int h = cfg_.hiddenSize;
  forRows(batch.numRows(), h, [&](int r) {
    float* out = act_.hidden.data() + size_t(r) * size_t(h);
    if (!table.isQuantized()) return embeddingRow(table.data, table.dtype, batch.tokenIds[size_t(r)], h, out);
    const size_t rowBytes = ggmlRowBytes(table.blockType, h);  // a GGUF table in blocks: one row dequantized
    dequantizeRow(table.blockType, static_cast<const uint8_t*>(table.data) + size_t(batch.tokenIds[size_t(r)]) * rowBytes,
                  out, h);
  });
}

void CpuExecutor::runLayer(size_t layer, int numRows, const std::vector<RowPosition>& rows, bool rowPerSequence) {
  const LayerMatrices& w = layers_[layer];
  const size_t h = size_t(cfg_.hiddenSize), qs = size_t(cfg_.qSize()), kvs = size_t(cfg_.kvSize());
  const size_t inter = size_t(cfg_.intermediateSize);
  Activations& a = act_;
  // --- attention block ---
  forRowSpans(numRows, int(h), [&](int begin, int end) {
    rmsNormRows(a.hidden.data() + size_t(begin) * h, h, end - begin, w.inputNorm, cfg_.rmsNormEps,
                a.normed.data() + size_t(begin) * h, h);
  });
  gemm(pool_, kernels_, a.normed.data(), h, numRows,
       {{&w.q, a.q.data(), qs}, {&w.k, a.k.data(), kvs}, {&w.v, a.v.data(), kvs}}, weightsStream_);
  const AttentionShape shape{cfg_.numAttentionHeads, cfg_.numKeyValueHeads, cfg_.headDim, blockSize_};
  const KvLayer cache{kCache_[layer].get(), vCache_[layer].get(), kvType_};
  const auto finish = [&](int r) { finishRow(w, r, rows[size_t(r)], shape, cache); };
  if (rowPerSequence) {
    pagedAttentionPerRow(pool_, kernels_, shape, rows, a.q.data(), cache, a.attn.data(), attnScratch_, finish);
  } else {
    // Attention starts after every row's K/V write, so a prefill row sees the earlier rows of its chunk.
    forRows(numRows, int(qs + kvs), finish);
    pagedAttention(pool_, kernels_, shape, rows, a.q.data(), cache, a.attn.data(), attnScratch_);
  }
  gemm(pool_, kernels_, a.attn.data(), qs, numRows, {{&w.o, a.proj.data(), h}}, weightsStream_);
  // --- MLP block ---
  forRowSpans(numRows, int(h), [&](int begin, int end) {
    for (int r = begin; r < end; ++r) {
      float* hr = a.hidden.data() + size_t(r) * h;
      const float* pr = a.proj.data() + size_t(r) * h;
      for (size_t i = 0; i < h; ++i) hr[i] += pr[i];
    }
    rmsNormRows(a.hidden.data() + size_t(begin) * h, h, end - begin, w.postAttnNorm, cfg_.rmsNormEps,
                a.normed.data() + size_t(begin) * h, h);
  });
  gemm(pool_, kernels_, a.normed.data(), h, numRows, {{&w.gate, a.gate.data(), inter}, {&w.up, a.up.data(), inter}},
       weightsStream_);
  forRows(numRows, int(inter), [&](int r) {
    float* g = a.gate.data() + size_t(r) * inter;
    kernels_.siluMul(g, a.up.data() + size_t(r) * inter, g, int(inter));
  });
  gemm(pool_, kernels_, a.gate.data(), inter, numRows, {{&w.down, a.proj.data(), h}}, weightsStream_);
  forRows(numRows, int(h), [&](int r) {
    float* hr = a.hidden.data() + size_t(r) * h;
    const float* pr = a.proj.data() + size_t(r) * h;
    for (size_t i = 0; i < h; ++i) hr[i] += pr[i];
  });
}

// One pass over a row's fresh projections: biases (Qwen2), per-head RMSNorm (Qwen3), then
// RoPE, then the row's K/V into its cache slot, while the row is in cache (and on every
// thread, not the caller alone). Row-wise, so batch invariance is kept; a Llama layer does
// exactly what it did before (RoPE only).
void CpuExecutor::finishRow(const LayerMatrices& w, int r, const RowPosition& row, const AttentionShape& shape,
                            const KvLayer& cache) {
  const size_t qs = size_t(cfg_.qSize()), kvs = size_t(cfg_.kvSize()), half = size_t(cfg_.headDim / 2);
  const size_t d = size_t(cfg_.headDim);
  Activations& a = act_;
  float* q = a.q.data() + size_t(r) * qs;
  float* k = a.k.data() + size_t(r) * kvs;
  if (!w.qBias.empty()) {
    addBias(q, w.qBias);
    addBias(k, w.kBias);
    addBias(a.v.data() + size_t(r) * kvs, w.vBias);
  }
  if (w.qNorm.size > 0) {
    rmsNormRows(q, d, int(qs / d), w.qNorm, cfg_.rmsNormEps, q, d);
    rmsNormRows(k, d, int(kvs / d), w.kNorm, cfg_.rmsNormEps, k, d);
  }
  const float* c = ropeCos_.data() + size_t(row.pos) * half;
  const float* s = ropeSin_.data() + size_t(row.pos) * half;
  applyRope(q, cfg_.numAttentionHeads, cfg_.headDim, c, s);
  applyRope(k, cfg_.numKeyValueHeads, cfg_.headDim, c, s);
  writeKvRow(shape, row, k, a.v.data() + size_t(r) * kvs, cache);
}

void CpuExecutor::computeLogits(const ForwardBatch& batch, ForwardResult& out) {
  const size_t h = size_t(cfg_.hiddenSize);
  std::vector<const float*> lastRows;  // the hidden rows whose logits are wanted, in order
  for (const SeqSlice& s : batch.seqs)
    if (s.needLogits)
      for (int i = s.numLogits; i >= 1; --i) lastRows.push_back(act_.hidden.data() + size_t(s.firstRow + s.numTokens - i) * h);
  out.numRows = int(lastRows.size());
  out.vocabSize = cfg_.vocabSize;
  // The GEMM below writes every element: a reused buffer is not cleared first.
  out.logits.resize(lastRows.size() * size_t(cfg_.vocabSize));
  if (lastRows.empty()) return;
  act_.logitRows.resize(lastRows.size() * h);
  std::vector<float*> normed(lastRows.size());
  for (size_t i = 0; i < normed.size(); ++i) normed[i] = act_.logitRows.data() + i * h;
  forRowSpans(int(lastRows.size()), int(h), [&](int begin, int end) {
    rmsNormRows(lastRows.data() + begin, normed.data() + begin, end - begin, finalNorm_, cfg_.rmsNormEps);
  });
  gemm(pool_, kernels_, act_.logitRows.data(), h, int(lastRows.size()),
       {{&lmHead_, out.logits.data(), size_t(cfg_.vocabSize)}}, weightsStream_);
}

// RoPE's table is filled while loading up to this many positions (16 MiB at head_dim 128):
// a model whose context runs to 128k or 1M positions would otherwise hold 64 or 512 MiB of
// it, and compute it at load, for positions few requests reach. Beyond, a step that goes
// further grows it (by doubling: a one-off cost, small beside the prefill that gets there).
constexpr int kEagerRopePositions = 32768;

// Grows the activation buffers (never shrinks them). Growing zero-fills, so the pages are
// touched here and not in the middle of a forward pass.
void CpuExecutor::reserveActivations(int numRows, int numLogitRows, int maxModelLen) {
  const size_t rows = size_t(numRows);
  Activations& a = act_;
  for (auto [buf, width] : {std::pair{&a.hidden, cfg_.hiddenSize}, {&a.normed, cfg_.hiddenSize}, {&a.proj, cfg_.hiddenSize},
                            {&a.q, cfg_.qSize()}, {&a.attn, cfg_.qSize()}, {&a.k, cfg_.kvSize()}, {&a.v, cfg_.kvSize()},
                            {&a.gate, cfg_.intermediateSize}, {&a.up, cfg_.intermediateSize}})
    if (buf->size() < rows * size_t(width)) buf->resize(rows * size_t(width));
  const size_t logitRows = size_t(numLogitRows) * size_t(cfg_.hiddenSize);
  if (a.logitRows.size() < logitRows) a.logitRows.resize(logitRows);
  if (maxModelLen > 0) {
    ensureRopeTable(std::min(maxModelLen, kEagerRopePositions));
    reserveAttentionScratch(pool_.numThreads(), cfg_.numAttentionHeads / cfg_.numKeyValueHeads, maxModelLen, attnScratch_,
                            kvType_ == DType::F32 ? 0 : cfg_.headDim);
  }
}

void CpuExecutor::ensureRopeTable(int numPositions) {
  numPositions = std::min(numPositions, cfg_.maxPositionEmbeddings);
  if (numPositions <= ropePositions_) return;
  // Doubling when a step outgrows the table, so positions creeping up one per step cost
  // O(n) in all.
  const int grown = std::max(numPositions, std::min(cfg_.maxPositionEmbeddings, 2 * ropePositions_));
  const size_t half = size_t(cfg_.headDim / 2);
  ropeCos_.resize(size_t(grown) * half);
  ropeSin_.resize(size_t(grown) * half);
  constexpr int kPositionsPerTask = 64;
  const int first = ropePositions_;
  pool_.parallelFor((grown - first + kPositionsPerTask - 1) / kPositionsPerTask, [&](int task, int) {
    const int end = std::min(grown, first + (task + 1) * kPositionsPerTask);
    for (int pos = first + task * kPositionsPerTask; pos < end; ++pos)
      ropeAngles(pos, invFreq_, &ropeCos_[size_t(pos) * half], &ropeSin_[size_t(pos) * half]);
  });
  ropePositions_ = grown;
}

// The first request after loading runs as fast as the following ones: everything a step
// of these limits grows is allocated and touched now, while the model loads.
bool CpuExecutor::setBatchLimits(const BatchLimits& limits) {
  reserveActivations(limits.maxNumBatchedTokens, limits.maxNumSeqs, limits.maxModelLen);
  return false;
}

void CpuExecutor::forward(const ForwardBatch& batch, ForwardResult& out) {
  validateBatch(batch, {cfg_.vocabSize, cfg_.maxPositionEmbeddings, numBlocks_, blockSize_});
  const int n = batch.numRows();
  std::vector<RowPosition> positions(static_cast<size_t>(n));
  int numPositions = 0;
  for (const SeqSlice& s : batch.seqs) {
    for (int i = 0; i < s.numTokens; ++i) positions[size_t(s.firstRow + i)] = {s.blockTable.data(), s.numCachedTokens + i};
    numPositions = std::max(numPositions, s.numCachedTokens + s.numTokens);
  }
  reserveActivations(n, 0, 0);
  ensureRopeTable(numPositions);
  embed(batch);
  // A decode step (every sequence one row) of at least two rows per thread: each row's
  // RoPE and K/V write run in its attention task, since no other row reads its
  // sequence's cache. A smaller one splits its attention by KV head instead: as one task
  // per row, a batch of one ran all of its heads on one thread while the others waited
  // (at 544 cached tokens, a quarter of a 2-thread Q4_K_M decode step). Each (row, head)
  // is the same attendGroup call either way, so the bits do not change.
  const bool oneRowEach = std::all_of(batch.seqs.begin(), batch.seqs.end(), [](const SeqSlice& s) { return s.numTokens == 1; });
  const bool rowPerSequence = oneRowEach && n >= 2 * pool_.numThreads();
  for (size_t l = 0; l < layers_.size(); ++l) runLayer(l, n, positions, rowPerSequence);
  computeLogits(batch, out);
}

}  // namespace

std::unique_ptr<Executor> createCpuExecutor(std::shared_ptr<const Model> model, int numThreads,
                                            GgmlType quantization, DType kvCacheType) {
  check(model != nullptr, "createCpuExecutor: no model");
  return std::make_unique<CpuExecutor>(std::move(model), numThreads, quantization, kvCacheType);
}

}  // namespace lwb
