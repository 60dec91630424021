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
// Dot products (attention scores): one SIMD accumulator of the ISA's width W per output,
// FMA over k = 0, W, 2W, ... in order, the tail (K % W) loaded zero-padded into one more
// FMA, then a horizontal sum in a fixed lane order. The scalar ISA is the same with W = 1
// and separate multiply and add.
#include <cstddef>

#include "engine/common/dtype.h"
#include "engine/exec/cpu/cpu_isa.h"

namespace lwb {

// Columns per packed weight panel, for every ISA (AVX2 uses two 8-lane vectors).
constexpr int kPanel = 16;

// y[t, n] = sum_k x[t, k] * W[n, k], weights packed in their file dtype: panel p holds
// W[16p + j, k] at element (p * K + k) * 16 + j, zero past N.
struct GemmArgs {
  const float* x = nullptr;  // [T, ldx], first K columns used
  size_t ldx = 0;
  const void* w = nullptr;   // packed panels, ceil(N / 16) * K * 16 elements
  DType wtype = DType::F32;
  float* y = nullptr;        // [T, ldy], first N columns written
  size_t ldy = 0;
  int K = 0;
  int N = 0;
};

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
  // Attention scores against n keys stored transposed (kt[i * ldk + j] = K_j[i]), for G
  // query heads q[g * d + i]: s[g * lds + j] = scale * Σ_i q·k. The sum over i runs in a
  // fixed order that depends only on d (SIMD: even/odd halves i < d/2 and i >= d/2 as two
  // sequential FMA chains, added at the end).
  void (*scoresT)(const float* q, int G, int d, const float* kt, size_t ldk, int n, float scale, float* s,
                  size_t lds) = nullptr;
  // out[g * d + i] += Σ_j p[g * ldp + j] * v[j * ldv + i], sequential over j = 0..n-1.
  void (*accumulateRows)(const float* p, size_t ldp, int G, const float* v, size_t ldv, int n, int d,
                         float* out) = nullptr;
};

// Throws lwb::Error when the ISA is not supported by this CPU.
const CpuKernels& cpuKernels(Isa isa);

// Per-ISA tables, defined in kernels_<isa>.cpp.
const CpuKernels& scalarKernels();
const CpuKernels& avx2Kernels();
const CpuKernels& avx512Kernels();

}  // namespace lwb
