#pragma once
// Causal attention over a paged KV cache.
//
// KV cache layout, per layer, in f32, bf16 or FP8 (E4M3 or E5M2; the kv_cache_dtype knob;
// the same layout, only the element type differs):
//   K: [numBlocks, numKvHeads, headDim, blockSize]  (transposed: a block's scores are
//      outer-product FMAs over its slots, no horizontal sums)
//   V: [numBlocks, blockSize, numKvHeads, headDim]
// Position p of a sequence lives in block blockTable[p / blockSize], slot p % blockSize.
//
// Invariance: the output of a (row, head) depends only on its query and the cached
// K/V of positions 0..pos of its own sequence, computed in position order with the same
// kernels whatever the batch, the chunking or the thread that runs it: scores block by
// block (each a fixed-order sum over the head dimension), max, exp and sum (fixed-order
// SIMD), then Σ p_j·V_j accumulated in position order.
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/exec/cpu/kernels.h"
#include "engine/exec/cpu/thread_pool.h"

namespace lwb {

struct AttentionShape {
  int numHeads = 0;
  int numKvHeads = 0;
  int headDim = 0;
  int blockSize = 0;
};

// Where one batch row sits: its sequence's block table and its position.
struct RowPosition {
  const int32_t* blockTable = nullptr;
  int pos = 0;
};

struct KvLayer {
  void* k = nullptr;  // [numBlocks, numKvHeads, headDim, blockSize] elements of `type`
  void* v = nullptr;
  DType type = DType::F32;  // F32, BF16, F8E4M3 or F8E5M2
};

// Copies one row's k/v (numKvHeads * headDim each) into its cache slot; into a bf16 or
// FP8 cache rounded to nearest even (floatToBf16 as bf16 weights are, floatToFp8E4m3 /
// floatToFp8E5m2: saturated to the largest finite value, a scale of 1 as vLLM's default).
void writeKvRow(const AttentionShape& s, const RowPosition& row, const float* k, const float* v, const KvLayer& cache);

// writeKvRow for every row of k/v ([numRows, numKvHeads * headDim]).
void writeKvCache(const AttentionShape& s, const std::vector<RowPosition>& rows, const float* k, const float* v,
                  const KvLayer& cache);

// Grows `scratch` to one buffer per thread, each enough for a GQA group of `groupSize`
// heads over maxLen positions (what pagedAttention needs for rows up to that length),
// and, with `widenedHeadDim` (a bf16 or FP8 cache's head_dim), one KV head's K and V of
// maxLen positions widened to f32 (pagedAttention widens them once for a prefill chunk's
// rows instead of in every row).
void reserveAttentionScratch(int numThreads, int groupSize, int maxLen, std::vector<std::vector<float>>& scratch,
                             int widenedHeadDim = 0);

// out[row, h*headDim..] = softmax(q·Kᵀ / sqrt(headDim)) · V over positions 0..pos of the
// row's sequence. q and out are [numRows, numHeads * headDim]. `scratch` holds one buffer
// per pool thread; they grow as needed.
void pagedAttention(ThreadPool& pool, const CpuKernels& kernels, const AttentionShape& s,
                    const std::vector<RowPosition>& rows, const float* q, const KvLayer& cache, float* out,
                    std::vector<std::vector<float>>& scratch);

// pagedAttention for a batch whose rows all belong to different sequences (a decode
// step): one task per row, which first runs before(row) (the row's RoPE and its K/V write:
// no other row reads that sequence) and then every KV head's group of the row. The same
// operations as pagedAttention, in one parallel region instead of two.
void pagedAttentionPerRow(ThreadPool& pool, const CpuKernels& kernels, const AttentionShape& s,
                          const std::vector<RowPosition>& rows, const float* q, const KvLayer& cache, float* out,
                          std::vector<std::vector<float>>& scratch, const std::function<void(int row)>& before);

}  // namespace lwb
