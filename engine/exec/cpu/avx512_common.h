#pragma once
// What the AVX-512 kernel files share (kernels_avx512.cpp: dot products, elementwise and
// attention; gemm_avx512.cpp: the GEMM tiles): their target region and the helpers
// compiled in it. Include it after the standard headers, as they do, then open the
// region with LWB_AVX512_BEGIN and close it with LWB_AVX512_END at the end of the file.
#include <cstddef>
#include <cstdint>

#include "engine/exec/cpu/kernels.h"

// Functions defined between the two are compiled for AVX-512 (and AVX2, FMA, F16C); the
// code outside, standard headers' inline functions included, stays portable.
#if defined(__clang__)  // clang has no GCC target pragma; this is its equivalent
#define LWB_AVX512_BEGIN \
  _Pragma("clang attribute push(__attribute__((target(\"avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c\"))), apply_to = function)")
#define LWB_AVX512_END _Pragma("clang attribute pop")
#else
// GCC 12 reports its own _mm*_undefined_*() self-initialisation under a target pragma.
#define LWB_AVX512_BEGIN                                        \
  _Pragma("GCC push_options")                                   \
  _Pragma("GCC diagnostic push")                                \
  _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")         \
  _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")   \
  _Pragma("GCC target(\"avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c\")")
#define LWB_AVX512_END _Pragma("GCC diagnostic pop") _Pragma("GCC pop_options")
#endif

// The same region with AVX512_BF16 too (gemm_bf16dot_avx512.cpp, the AVX-512 BF16 level).
#if defined(__clang__)
#define LWB_AVX512_BF16_BEGIN                                                                                     \
  _Pragma("clang attribute push(__attribute__((target(\"avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma,f16c\"))), apply_to = function)")
#else
#define LWB_AVX512_BF16_BEGIN                                   \
  _Pragma("GCC push_options")                                   \
  _Pragma("GCC diagnostic push")                                \
  _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")         \
  _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")   \
  _Pragma("GCC target(\"avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma,f16c\")")
#endif
#define LWB_AVX512_BF16_END LWB_AVX512_END

LWB_AVX512_BEGIN
#include <immintrin.h>

namespace lwb::avx512 {

constexpr int kW = 16;
static_assert(kPanel == kW, "one zmm register per packed panel row");

// 16 weights of one packed panel row, as f32 (F32 and F16 panels; BF16 ones hold k pairs).
template <DType D>
inline __m512 loadW(const void* base, size_t i) {
  static_assert(D != DType::BF16, "bf16 panels hold k pairs: loadPairLow, loadPairHigh");
  if constexpr (D == DType::F32) {
    return _mm512_load_ps(static_cast<const float*>(base) + i);
  } else {
    const __m256i h = _mm256_load_si256(reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(base) + i));
    return _mm512_cvtph_ps(h);
  }
}

// A bf16 k pair of 16 columns at element i of a panel (layout in kernels.h): lane j holds
// W[j, k] in its low half and W[j, k + 1] in its high half. Converting it is exact: w_k is
// the lane shifted up 16 bits (a shift that loads), w_k+1 the lane with its low half
// zeroed, which a masked load does without an ALU uop or a zmm register for the mask: one
// uop on the FMA ports per 32 weights instead of a zero-extension and a shift per 16.
inline __m512 loadPairLow(const void* base, size_t i) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_load_si512(static_cast<const uint16_t*>(base) + i), 16));
}
inline __m512 loadPairHigh(const void* base, size_t i) {
  const __m512i v = _mm512_load_si512(static_cast<const uint16_t*>(base) + i);
  return _mm512_castsi512_ps(_mm512_maskz_mov_epi16(__mmask32(0xaaaaaaaau), v));
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

// The columns of the last of numPanels panels from column c0 that lie before colEnd.
inline __mmask16 maskOf(int colEnd, int c0, int numPanels) {
  const int lastWidth = colEnd - (c0 + (numPanels - 1) * kW);
  return lastWidth >= kW ? __mmask16(0xffff) : tailMask(lastWidth);
}

// Keeps a loaded vector in a register: GCC otherwise folds a load that feeds several FMAs
// into each of them, and the loop becomes bound by loads instead of FMAs.
inline void inRegister(__m512& v) { asm("" : "+v"(v)); }

// CpuKernels::gemmBlock and panelGroup for AVX-512 (gemm_avx512.cpp).
void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols);
int panelGroup(DType wtype, int numRows);

}  // namespace lwb::avx512
LWB_AVX512_END
