#pragma once
// What the AVX-512 kernel files share (kernels_avx512.cpp: dot products, elementwise and
// attention; gemm_avx512.cpp: the GEMM tiles). Include it inside their target region,
// after the standard headers and <immintrin.h>, as they do: everything here is compiled
// for AVX-512.
#include <cstddef>
#include <cstdint>

#include "engine/exec/cpu/kernels.h"

namespace lwb::avx512 {

constexpr int kW = 16;
static_assert(kPanel == kW, "one zmm register per packed panel row");

template <DType D>
inline __m512 loadW(const void* base, size_t i) {
  if constexpr (D == DType::F32) {
    return _mm512_load_ps(static_cast<const float*>(base) + i);
  } else {
    const __m256i h = _mm256_load_si256(reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(base) + i));
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

// Keeps a loaded vector in a register: GCC otherwise folds a load that feeds several FMAs
// into each of them, and the loop becomes bound by loads instead of FMAs.
inline void inRegister(__m512& v) { asm("" : "+v"(v)); }

// CpuKernels::gemmBlock for AVX-512 (gemm_avx512.cpp).
void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols);

}  // namespace lwb::avx512
