#pragma once
// The executor runs ONE forward pass over a flattened batch: the tokens of many
// requests at once, each contributing a prompt chunk or one decode token. Attention
// reads and writes a paged KV cache through each request's block table. Only executors
// touch weights and devices; the scheduler and KV manager never do.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/common/dtype.h"
#include "engine/common/error.h"
#include "engine/config/engine_config.h"
#include "engine/model/quant_types.h"

namespace lwb {

struct Model;

// One request's rows in the flattened batch.
struct SeqSlice {
  int64_t requestId = 0;
  int32_t firstRow = 0;       // index of its first token in ForwardBatch::tokenIds
  int32_t numTokens = 0;      // rows this step: a prompt chunk, or 1 when decoding
  int32_t numCachedTokens = 0; // tokens already in its KV blocks (= position of its first row)
  std::vector<int32_t> blockTable;  // block ids covering positions [0, numCachedTokens + numTokens)
  bool needLogits = false;    // logits for its last row (prompt finished, or decoding)
  int32_t numLogits = 1;      // with needLogits: logits for its last numLogits rows
                              // (speculative decoding verifies several positions)
};

struct ForwardBatch {
  std::vector<int32_t> tokenIds;  // [numRows]; positions are numCachedTokens + i per slice
  std::vector<SeqSlice> seqs;     // in row order, non-overlapping, covering every row
  int numRows() const { return int(tokenIds.size()); }
  int numLogitRows() const;
};

struct ForwardResult {
  int numRows = 0;                // == batch.numLogitRows()
  int vocabSize = 0;
  std::vector<float> logits;      // [numRows, vocabSize], in the order of seqs with needLogits,
                                  // each seq's numLogits rows in position order
  const float* row(int i) const { return logits.data() + size_t(i) * size_t(vocabSize); }
  // A simulated executor returns no logits: it chooses one token per logit row itself
  // (tokenIds, in the order of `logits`) and says how long the step would have taken on
  // the simulated hardware (predictedSeconds; < 0 from an executor that really ran).
  std::vector<int32_t> tokenIds;
  double predictedSeconds = -1;
};

// The largest step the scheduler may send (its knobs in force): the executor sizes its
// activation buffers from them.
struct BatchLimits {
  int maxNumBatchedTokens = 0;  // rows per forward
  int maxNumSeqs = 0;           // sequences (logit rows) per forward
  int maxModelLen = 0;          // context per sequence
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual DeviceInfo deviceInfo() const = 0;
  // KV bytes one block of `blockSize` tokens takes over all layers (K and V).
  virtual size_t kvBytesPerBlock(int blockSize) const = 0;
  // Bytes the KV pool may take by default: CPU: free RAM less a safety margin; CUDA:
  // total memory × gpu_memory_utilization less weights and activations.
  virtual size_t defaultKvBudgetBytes() const = 0;
  // (Re)allocates the paged KV pool; previous contents are lost.
  virtual void allocateKvCache(int numBlocks, int blockSize) = 0;
  virtual int numKvBlocks() const = 0;
  virtual int kvBlockSize() const = 0;
  // Sizes the activation buffers for steps up to `limits`, before the KV pool takes the
  // rest of the memory (call it before defaultKvBudgetBytes) and again when the knobs
  // change. Returns true when making room meant releasing the KV pool: the caller must
  // then allocateKvCache again (its contents are gone). The CPU executor needs nothing.
  virtual bool setBatchLimits(const BatchLimits& limits) {
    (void)limits;
    return false;
  }
  // Runs the batch; throws lwb::Error on an invalid batch (block ids out of range,
  // positions past max_position_embeddings) without touching the cache.
  // Within one forward pass every row's K/V of a layer is written before any row's
  // attention of that layer reads the cache, so a sequence may read blocks that an
  // earlier sequence of the same batch writes (same-step prefix sharing relies on it).
  virtual void forward(const ForwardBatch& batch, ForwardResult& out) = 0;
  // Runs fn(0), ..., fn(n - 1) on the host threads this executor computes with, between
  // forward passes: the engine samples a step's rows there, each request's own state
  // only. In any order and concurrently; fn must not throw. Default: in order, on the
  // calling thread (an executor whose host side has no threads of its own).
  virtual void runHostTasks(int n, const std::function<void(int i)>& fn) {
    for (int i = 0; i < n; ++i) fn(i);
  }
  // P/D disaggregation (engine/pd_engine.h): one block's K and V over all layers,
  // kvBytesPerBlock(kvBlockSize()) bytes in the executor's own layout (two instances of
  // one model and kv_cache_dtype share it). An executor whose pool holds no data (the
  // simulator) reads and writes nothing: holdsKvData() is false and the caller prices the
  // transfer instead. Default: throws, naming the backend (the CUDA plugin has no copy).
  // Inline, as every virtual here: the CUDA plugin links no engine library, so the
  // class's vtable and type info must come from this header.
  virtual bool holdsKvData() const { return true; }
  virtual void readKvBlock(int blockId, char* out) const {
    (void)blockId;
    (void)out;
    throw Error("KV transfer: the " + deviceInfo().backend + " backend cannot read a KV block (P/D runs on cpu or sim)");
  }
  virtual void writeKvBlock(int blockId, const char* data) {
    (void)blockId;
    (void)data;
    throw Error("KV transfer: the " + deviceInfo().backend + " backend cannot write a KV block (P/D runs on cpu or sim)");
  }
};

// "q8_0" → Q8_0, "q4_k" → Q4_K, "" or "none" → F32 (unquantized); throws lwb::Error
// naming the value and the choices otherwise.
GgmlType parseQuantization(const std::string& name);

// kv_cache_dtype on the CPU backend: float32 → F32, bfloat16 → BF16, fp8 and fp8_e4m3 →
// F8E4M3 (vLLM's fp8), fp8_e5m2 → F8E5M2; auto → F32 for float weights (the golden
// outputs stay bit-identical) and BF16 for quantized ones (`quantizedWeights`: a GGUF
// file's ggml blocks, or quantization at load): such a model has no float dtype of its
// own to follow, llama.cpp keeps its KV cache in 16 bits, and batch-1 decode attention
// then reads half the bytes. Throws the knob table's error (naming the knob and the
// choices) for anything else.
DType cpuKvCacheType(const std::string& name, bool quantizedWeights = false);

// The CUDA backend keeps its KV cache in its activation dtype: bf16, or f16 when every
// weight matrix is F16 (`f16Activations`). Throws lwb::Error naming kv_cache_dtype, the
// value and the backend unless `name` is auto or that dtype. --backend cuda then fails;
// --backend auto runs on the CPU and its notice says why (as for quantized weights).
void checkCudaKvCacheDtype(const std::string& name, bool f16Activations);

// Picks and creates the executor. `notice` receives why auto fell back to the CPU.
// Throws lwb::Error when the asked backend is unavailable ("--backend cuda: no CUDA
// device: <reason>").
std::unique_ptr<Executor> createExecutor(std::shared_ptr<const Model> model,
                                         const ExecutorOptions& options, std::string* notice = nullptr);

}  // namespace lwb
