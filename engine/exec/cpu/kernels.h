#pragma once
// The per-ISA inner kernels. Each output element is computed by one fixed sequence of
// floating-point operations that depends only on the reduction length, never on which
// tile, batch row or thread computes it: this is what makes the executor batch-invariant.
//
// GEMM (outer-product form): weights are repacked once into K-major panels of kPanel
// columns (see PackedMatrix in gemm.h); a register tile of rows × panels broadcasts
// x[t][k] and FMAs it with the panel vector W[k][n..n+15], so every output is one strict
// sequential sum over k = 0..K-1 (acc = fma(x, w, acc); scalar: acc = acc + x*w) whatever
// the tile shape, batch size or thread split. No horizontal sums.
//
// Dot products: one SIMD accumulator of the ISA's width W per output,
// FMA over k = 0, W, 2W, ... in order, the tail (K % W) loaded zero-padded into one more
// FMA, then a horizontal sum in a fixed lane order. The scalar ISA is the same with W = 1
// and separate multiply and add.
#include <cstddef>
#include <cstdint>

#include "engine/common/dtype.h"
#include "engine/exec/cpu/cpu_isa.h"

namespace lwb {

// Columns per packed weight panel, for every ISA (AVX2 uses two 8-lane vectors).
constexpr int kPanel = 16;

// y[t, n] = sum_k x[t, k] * W[n, k], weights packed in their file dtype: panel p holds
// W[16p + j, k] at element (p * K + k) * 16 + j (F32, F16), zero past N.
// BF16 is packed in k pairs, so that one 32-bit lane holds two consecutive k of a column
// and a shift (k) or a mask (k + 1) turns it into f32, exactly: element (k, j) at
// (p * Kp + k / 2) * 32 + 2 * j + k % 2 with Kp = ceil(K / 2), the pad half of an odd K's
// last pair zero. Panels are packedK(wtype, K) * 16 elements apart (K rounded up to even
// for BF16), and an even k's pair starts at element (p * packedK + k) * 16 in both layouts.
struct GemmArgs {
  const float* x = nullptr;  // [T, ldx], first K columns used
  size_t ldx = 0;
  const void* w = nullptr;   // packed panels, ceil(N / 16) * packedK(wtype, K) * 16 elements
  DType wtype = DType::F32;
  float* y = nullptr;        // [T, ldy], first N columns written
  size_t ldy = 0;
  int K = 0;
  int N = 0;
  // A hint: the first column of the block that the calling thread will probably work on
  // next (-1: none known), whose first panels a kernel may prefetch as it finishes.
  int nextCol = -1;
  // The rows of x as k pairs rounded to bf16 (lane = bf16(x[t][k]) | bf16(x[t][k + 1]) << 16,
  // the pad half of an odd K zero), ldxPairs lanes apart: set by gemm() for BF16 weights
  // when the kernels take bf16 activations (CpuKernels::bf16Pairs).
  const uint32_t* xPairs = nullptr;
  size_t ldxPairs = 0;
  // A hint: the caller's weights, all together, outgrow the L3, so a step streams them
  // from memory and a batch of few rows is bound by the bandwidth (gemm()'s weightsStream).
  // Kernels may prefetch differently by it; no result depends on it.
  bool weightsStream = false;
};

// The most rows gemm() hands one gemmBlock call (its row groups, gemm.cpp): each task
// streams its columns' weights from memory once (and, for 16-bit weights, converts them
// once per K block), so large groups mean few passes over weights bigger than the caches;
// x of a group's K block (256 rows × 256 k) stays in L2.
constexpr int kGemmRowGroup = 256;

// Rows of k per packed panel: K, or K rounded up to even for BF16's k pairs.
constexpr int packedK(DType wtype, int K) { return wtype == DType::BF16 ? (K + 1) / 2 * 2 : K; }

// One KV head of one sequence in the paged cache: position j lives in block
// blockTable[j / blockSize], slot j % blockSize; that block's K is the [d, blockSize]
// matrix at k + blockTable[b] * kBlockStride (transposed: element (i, slot) at
// i * blockSize + slot), its V rows are ldv apart from v + blockTable[b] * vBlockStride.
// Strides count elements of `type`: F32 (float) or BF16 (uint16_t, widened to f32 on
// load by a 16-bit shift, which is exact; everything after the load is the f32 path).
struct PagedKv {
  const int32_t* blockTable = nullptr;
  int blockSize = 0;
  const void* k = nullptr;
  size_t kBlockStride = 0;
  const void* v = nullptr;
  size_t vBlockStride = 0;
  size_t ldv = 0;
  DType type = DType::F32;
};

// Score columns per attention row in attendRow's scratch: n rounded up to 16.
inline size_t scoreStride(int n) { return (size_t(n) + 15) / 16 * 16; }

// fn.template operator()<D>() for a weight dtype D (F32, F16 or BF16): how each ISA's
// gemmBlock picks its tiles. The FP8 types are KV cache elements only (parseDType refuses
// them for weights), so nothing runs for them.
template <typename Fn>
void forWeightDType(DType type, Fn&& fn) {
  switch (type) {
    case DType::F32: return fn.template operator()<DType::F32>();
    case DType::F16: return fn.template operator()<DType::F16>();
    case DType::BF16: return fn.template operator()<DType::BF16>();
    case DType::F8E4M3:
    case DType::F8E5M2: return;
  }
}

// fn.template operator()<T>() for the element type T of a KV cache of `type`: float
// (F32), uint16_t (BF16), Fp8E4m3, Fp8E5m2. F16 is no KV cache type (the CPU executor
// refuses it): nothing runs.
template <typename Fn>
void forKvElement(DType type, Fn&& fn) {
  switch (type) {
    case DType::F32: return fn.template operator()<float>();
    case DType::BF16: return fn.template operator()<uint16_t>();
    case DType::F8E4M3: return fn.template operator()<Fp8E4m3>();
    case DType::F8E5M2: return fn.template operator()<Fp8E5m2>();
    case DType::F16: return;
  }
}

struct CpuKernels {
  Isa isa = Isa::Scalar;
  // Computes rows [row0, row0+numRows) × columns [col0, col0+numCols) of one GEMM;
  // col0 is a multiple of kPanel, col0 + numCols is one too or N.
  void (*gemmBlock)(const GemmArgs& a, int row0, int numRows, int col0, int numCols) = nullptr;
  float (*dot)(const float* a, const float* b, int n) = nullptr;
  // y[i] += a * x[i]
  void (*axpy)(float a, const float* x, float* y, int n) = nullptr;
  // s[i] = exp(s[i] - max); returns the sum of the new s (fixed order).
  float (*expAndSum)(float* s, int n, float max) = nullptr;
  // out[i] = silu(gate[i]) * up[i]  (SwiGLU), elementwise
  void (*siluMul)(const float* gate, const float* up, float* out, int n) = nullptr;
  // One query row's GQA group against its n cached positions (layout in attention.h):
  // out[g * d + i] = Σ_j softmax_j(scale · q_g·K_j) · V_j[i] for the G heads q[g * d + i]
  // that share this KV head. The order is fixed by (d, n) alone: each score is two
  // sequential FMA chains over i (i < d/2 and i >= d/2, added at the end; scalar: one
  // chain, separate multiply and add), the max, exp and sum as expAndSum, then Σ_j in
  // position order, times 1/sum. `scratch` holds G * (roundUp(n, 16) + 1) floats.
  void (*attendRow)(const float* q, int G, int d, const PagedKv& kv, int n, float scale, float* scratch,
                    float* out) = nullptr;
  // Panels per register tile that gemmBlock uses for numRows rows of wtype weights, when
  // the caller should cut column blocks in multiples of it (a block that splits into
  // narrower tiles runs them at a lower rate); null or 1: no preference. Performance only:
  // every output's order is fixed whatever the blocks.
  int (*panelGroup)(DType wtype, int numRows) = nullptr;
  // dst[i] = src[i] widened exactly to f32, for n contiguous KV elements of `type` (F32,
  // BF16, F8E4M3, F8E5M2): the values attendRow reads from such a cache.
  void (*widenKv)(DType type, const void* src, size_t n, float* dst) = nullptr;
  // Set where gemmBlock takes bf16 weights' activations as bf16 k pairs (Isa::Avx512Bf16):
  // out[i] = floatToBf16(x[2i]) | floatToBf16(x[2i + 1]) << 16 for i < ceil(K / 2), zero
  // past K. Null: gemmBlock reads x.
  void (*bf16Pairs)(const float* x, int K, uint32_t* out) = nullptr;
};

// Throws lwb::Error when the ISA is not supported by this CPU.
const CpuKernels& cpuKernels(Isa isa);

// Per-ISA tables, defined in kernels_<isa>.cpp.
const CpuKernels& scalarKernels();
const CpuKernels& avx2Kernels();
const CpuKernels& avx512Kernels();
const CpuKernels& avx512Bf16Kernels();  // gemm_bf16dot_avx512.cpp
// AVX2 attention (kernels_attention_avx2.cpp): avx2Kernels().attendRow and .widenKv on x86-64.
void avx2AttendRow(const float* q, int G, int d, const PagedKv& kv, int n, float scale, float* scratch, float* out);
void avx2WidenKv(DType type, const void* src, size_t n, float* dst);

}  // namespace lwb
