// AVX-512 kernels (W = 16). Standard headers come before the target pragma so that no
// inline library code is emitted with AVX-512 instructions for use elsewhere.
#include <cstdint>
#include <cstring>

#include "engine/exec/cpu/kernels.h"

#if defined(__x86_64__)
#if defined(__clang__)  // clang has no GCC target pragma; this is its equivalent
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
// GCC 12 reports its own _mm*_undefined_*() self-initialisation under a target pragma.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")
#endif
#include <immintrin.h>

namespace lwb {
namespace {

constexpr int kW = 16;
constexpr int kTileRows = 4;  // register tile: 4 rows × 4 columns = 16 accumulators
constexpr int kTileCols = 4;

template <DType D>
inline __m512 loadW(const void* base, size_t i) {
  if constexpr (D == DType::F32) {
    return _mm512_loadu_ps(static_cast<const float*>(base) + i);
  } else {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(base) + i));
    if constexpr (D == DType::BF16) return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    else return _mm512_cvtph_ps(h);
  }
}

// The tail chunk: lanes past `mask` are zero.
template <DType D>
inline __m512 loadWTail(const void* base, size_t i, __mmask16 mask) {
  if constexpr (D == DType::F32) {
    return _mm512_maskz_loadu_ps(mask, static_cast<const float*>(base) + i);
  } else {
    const __m256i h = _mm256_maskz_loadu_epi16(mask, static_cast<const uint16_t*>(base) + i);
    if constexpr (D == DType::BF16) return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    else return _mm512_cvtph_ps(h);
  }
}

// Fixed order: 16 → 8 → 4 → 2 → 1 lanes, adding the upper half to the lower.
inline float hsum(__m512 v) {
  const __m256 a = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  const __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  const __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));
  const __m128 d = _mm_add_ss(c, _mm_movehdup_ps(c));
  return _mm_cvtss_f32(d);
}

inline __mmask16 tailMask(int n) { return __mmask16((1u << n) - 1u); }

// R rows × C columns, each output one accumulator (see kernels.h).
template <DType D, int R, int C>
void tile(const GemmArgs& a, int row0, int col0) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  const float* x = a.x + size_t(row0) * a.ldx;
  const size_t K = size_t(a.K);
  size_t wOff[C];
  for (int c = 0; c < C; ++c) wOff[c] = size_t(col0 + c) * K;
  size_t k = 0;
  for (; k + kW <= K; k += kW) {
    __m512 w[C];
    for (int c = 0; c < C; ++c) w[c] = loadW<D>(a.w, wOff[c] + k);
    for (int r = 0; r < R; ++r) {
      const __m512 xv = _mm512_loadu_ps(x + size_t(r) * a.ldx + k);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_fmadd_ps(xv, w[c], acc[r][c]);
    }
  }
  if (k < K) {
    const __mmask16 m = tailMask(int(K - k));
    __m512 w[C];
    for (int c = 0; c < C; ++c) w[c] = loadWTail<D>(a.w, wOff[c] + k, m);
    for (int r = 0; r < R; ++r) {
      const __m512 xv = _mm512_maskz_loadu_ps(m, x + size_t(r) * a.ldx + k);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_fmadd_ps(xv, w[c], acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) a.y[size_t(row0 + r) * a.ldy + size_t(col0 + c)] = hsum(acc[r][c]);
}

template <DType D, int R>
void tileRows(const GemmArgs& a, int row0, int col0, int numCols) {
  switch (numCols) {
    case 1: tile<D, R, 1>(a, row0, col0); break;
    case 2: tile<D, R, 2>(a, row0, col0); break;
    case 3: tile<D, R, 3>(a, row0, col0); break;
    default: tile<D, R, 4>(a, row0, col0); break;
  }
}

template <DType D>
void tileAny(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  switch (numRows) {
    case 1: tileRows<D, 1>(a, row0, col0, numCols); break;
    case 2: tileRows<D, 2>(a, row0, col0, numCols); break;
    case 3: tileRows<D, 3>(a, row0, col0, numCols); break;
    default: tileRows<D, 4>(a, row0, col0, numCols); break;
  }
}

// Column tiles outermost so a tile's weights stay in L1 while every row tile uses them.
template <DType D>
void gemmBlockT(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  for (int c = 0; c < numCols; c += kTileCols) {
    const int nc = numCols - c < kTileCols ? numCols - c : kTileCols;
    for (int r = 0; r < numRows; r += kTileRows) {
      const int nr = numRows - r < kTileRows ? numRows - r : kTileRows;
      tileAny<D>(a, row0 + r, nr, col0 + c, nc);
    }
  }
}

void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  switch (a.wtype) {
    case DType::F32: gemmBlockT<DType::F32>(a, row0, numRows, col0, numCols); break;
    case DType::F16: gemmBlockT<DType::F16>(a, row0, numRows, col0, numCols); break;
    case DType::BF16: gemmBlockT<DType::BF16>(a, row0, numRows, col0, numCols); break;
  }
}

float dot(const float* a, const float* b, int n) {
  __m512 acc = _mm512_setzero_ps();
  int i = 0;
  for (; i + kW <= n; i += kW) acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc);
  if (i < n) {
    const __mmask16 m = tailMask(n - i);
    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), acc);
  }
  return hsum(acc);
}

void axpy(float alpha, const float* x, float* y, int n) {
  const __m512 av = _mm512_set1_ps(alpha);
  int i = 0;
  for (; i + kW <= n; i += kW)
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(av, _mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i)));
  if (i < n) {
    const __mmask16 m = tailMask(n - i);
    _mm512_mask_storeu_ps(y + i, m, _mm512_fmadd_ps(av, _mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i)));
  }
}

// exp(x) for x <= 0 (Cephes expf: range reduction by ln2, degree-5 polynomial, 2^n by
// scalef); relative error ~1e-7.
inline __m512 expNonPositive(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.0f));
  const __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500E-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507E-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073E-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894E-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459E-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201E-1f));
  const __m512 y = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(y, fx);
}

float expAndSum(float* s, int n, float max) {
  const __m512 mv = _mm512_set1_ps(max);
  __m512 acc = _mm512_setzero_ps();
  int i = 0;
  for (; i + kW <= n; i += kW) {
    const __m512 e = expNonPositive(_mm512_sub_ps(_mm512_loadu_ps(s + i), mv));
    _mm512_storeu_ps(s + i, e);
    acc = _mm512_add_ps(acc, e);
  }
  if (i < n) {
    const __mmask16 m = tailMask(n - i);
    const __m512 e = _mm512_maskz_mov_ps(m, expNonPositive(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, s + i), mv)));
    _mm512_mask_storeu_ps(s + i, m, e);
    acc = _mm512_add_ps(acc, e);
  }
  return hsum(acc);
}

// silu(g) = g * sigmoid(g), sigmoid from e = exp(-|g|) so the exponent never overflows.
inline __m512 silu(__m512 g) {
  const __m512 absG = _mm512_abs_ps(g);
  const __m512 e = expNonPositive(_mm512_sub_ps(_mm512_setzero_ps(), absG));
  const __m512 onePlusE = _mm512_add_ps(_mm512_set1_ps(1.0f), e);
  const __mmask16 negative = _mm512_cmp_ps_mask(g, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 numer = _mm512_mask_blend_ps(negative, _mm512_set1_ps(1.0f), e);
  return _mm512_mul_ps(g, _mm512_div_ps(numer, onePlusE));
}

void siluMul(const float* gate, const float* up, float* out, int n) {
  int i = 0;
  for (; i + kW <= n; i += kW)
    _mm512_storeu_ps(out + i, _mm512_mul_ps(silu(_mm512_loadu_ps(gate + i)), _mm512_loadu_ps(up + i)));
  if (i < n) {
    const __mmask16 m = tailMask(n - i);
    _mm512_mask_storeu_ps(out + i, m, _mm512_mul_ps(silu(_mm512_maskz_loadu_ps(m, gate + i)), _mm512_maskz_loadu_ps(m, up + i)));
  }
}

}  // namespace

const CpuKernels& avx512Kernels() {
  static const CpuKernels k{Isa::Avx512, &gemmBlock, &dot, &axpy, &expAndSum, &siluMul};
  return k;
}

}  // namespace lwb
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif

#else
namespace lwb {
const CpuKernels& avx512Kernels() { return scalarKernels(); }
}  // namespace lwb
#endif
