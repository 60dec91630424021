#pragma once
// The CUDA kernels of the Llama forward pass, as host launchers. T is the activation
// and weight type (__nv_bfloat16, or __half for f16 models); the residual stream, q
// after RoPE and all accumulations are fp32.
//
// Row counts are read on the device (`numRows` points into the metadata header) and
// grids are sized by a capacity (`capRows`): blocks past the count return at once. That
// is what lets a CUDA graph captured for a bucket of 64 rows replay a batch of 37.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "engine/exec/cuda/batch_plan.h"

namespace lwb::cuda {

// residual[r] = float(table[tokenIds[r]]); residual [rows, hidden].
template <typename T>
void launchEmbedding(const T* table, const int32_t* tokenIds, const int32_t* numRows, int capRows, int hidden,
                     float* residual, cudaStream_t stream);

// For output row o (source row r = rowMap ? rowMap[o] : o):
//   v = residual[r] + delta[r] (delta may be null); residual[r] = v when writeResidual;
//   out[o] = v / sqrt(mean(v^2) + eps) * weight.
// Hugging Face's "hidden = hidden + sublayer(...)" followed by the next RMSNorm, fused.
template <typename T>
void launchAddRmsNorm(float* residual, const T* delta, const float* weight, const int32_t* rowMap,
                      const int32_t* numRows, int capRows, int hidden, float eps, bool writeResidual, T* out,
                      cudaStream_t stream);

// out[r][i] = silu(gateUp[r][i]) * gateUp[r][inter + i]; gateUp [rows, 2*inter].
template <typename T>
void launchSwiGlu(const T* gateUp, const int32_t* numRows, int capRows, int inter, T* out, cudaStream_t stream);

struct RopeShape {
  int numHeads, numKvHeads, headDim;
  const float* invFreq;          // [headDim / 2]
  const float* bias = nullptr;   // [qSize + 2*kvSize] (q | k | v), Qwen2; null: none
  const float* qNorm = nullptr;  // [headDim], Qwen3: RMSNorm of each q head; null: none
  const float* kNorm = nullptr;  // [headDim], with qNorm
  float eps = 1e-6f;             // of the per-head RMSNorm
};

// qkv [rows, (numHeads + 2*numKvHeads) * headDim] (q | k | v), per head: + bias (when
// given), RMSNorm over the head (when qNorm/kNorm are given), then rotate_half RoPE at
// positions[r] on q (written as fp32 to qOut [rows, numHeads*headDim]) and on k; k and
// v (+ bias) are written to cache slot slots[r] (skipped when -1) of kCache/vCache
// [slots, numKvHeads*headDim]. All of it in fp32 on the GEMM's rounded output, as the
// CPU executor's finishQkv does.
template <typename T>
void launchRopeCache(const T* qkv, const int32_t* positions, const int32_t* slots, const int32_t* numRows,
                     int capRows, const RopeShape& shape, float* qOut, T* kCache, T* vCache, cudaStream_t stream);

template <typename T>
struct AttnArgs {
  const float* q;       // [rows, numHeads*headDim], RoPE applied
  const T* kCache;      // this layer's pool [numBlocks*blockSize slots, numKvHeads*headDim]
  const T* vCache;
  const int32_t* blockTables;  // MetaLayout::blockTables
  T* out;               // [rows, numHeads*headDim]
  float* partAcc;       // [partials, numHeads, headDim]: unnormalised sums of split rows
  float* partMl;        // [partials, numHeads, 2]: running max and sum of exp
  int numHeads, numKvHeads, headDim, blockSize;
  float scale;          // 1/sqrt(headDim)
};

// Causal attention of the work items' query rows over their sequence's cached keys
// (the chunk's own keys are already in the cache). Grid: (gridWork, numKvHeads); one
// warp per (row, q head of the kv group).
template <typename T>
void launchAttention(const AttnArgs<T>& args, const AttnWork* work, const int32_t* numWork, int gridWork,
                     int rowsPerTile, cudaStream_t stream);

// Merges the partial results of split decode rows (flash-decoding's second step).
template <typename T>
void launchAttentionCombine(const AttnArgs<T>& args, const CombineItem* items, const int32_t* numItems,
                            int gridItems, cudaStream_t stream);

// Why the attention kernel cannot run this shape ("" when it can): head dims must be
// multiples of 8 up to 256, at most 32 query heads per kv head, and a block of
// `maxWarps` warps must fit the device's opt-in shared memory (0: not checked).
std::string attentionUnsupportedReason(int headDim, int group, int maxWarps, int sharedOptinBytes);
// Dynamic shared memory one attention block of `numWarps` warps needs.
size_t attentionSharedBytes(int headDim, int numWarps);

// Element type conversion on the device; dtypes are LwbCudaDType values.
void launchConvert(const void* src, int srcDType, void* dst, int dstDType, int64_t n, cudaStream_t stream);
// dst[i] = offset + scale * uniform[-1, 1), seeded by (seed, i).
void launchRandomFill(void* dst, int dstDType, int64_t n, uint64_t seed, float scale, float offset,
                      cudaStream_t stream);
// Fills with NaN (all bits set: NaN in f32, f16 and bf16), to catch unwritten outputs.
void poison(void* dst, size_t bytes, cudaStream_t stream);

// Row-major y[rows, n] = x[rows, k] · w[n, k]^T with fp32 accumulation; y is T, or fp32
// when yF32 (logits).
template <typename T>
void gemm(cublasHandle_t handle, const T* x, int rows, int k, const T* w, int n, void* y, bool yF32);

}  // namespace lwb::cuda
