// FP8 KV codes (Fp8E4m3 / Fp8E5m2, dtype.h) to f16 bit patterns, for the attention tiles:
// included by kernels_avx512.cpp and kernels_attention_avx2.cpp inside their target
// regions, which then convert with vcvtph2ps. Exact: E5M2 is f16's upper byte; E4M3
// (bias 7) is an f16 (bias 15) with its exponent and mantissa one bit lower, times 2^8
// (kE4m3Scale), subnormals included. E4M3's NaN code (S.1111.111) must read as NaN, as
// the scalar table decodes it. Lanes hold one code each (0..255, zero-extended).
#include <type_traits>

constexpr float kE4m3Scale = 256.0f;

template <typename T>
constexpr bool kIsFp8 = std::is_same_v<T, lwb::Fp8E4m3> || std::is_same_v<T, lwb::Fp8E5m2>;

// E4M3: code << 7 puts S at bit 14 and EEEE.MMM at bits 13..7; adding bit 14 to itself
// moves S to bit 15. The NaN code would come out as 1.875 (480 after the scale): the
// 8-lane form makes it an f16 NaN itself; the 16-lane form leaves it to its caller (the
// AVX-512 tile marks it with a byte compare into a mask).
template <typename T>
inline __m128i fp8ToHalf(__m128i x) {  // 8 lanes; E4M3's NaN code becomes an f16 NaN here
  if constexpr (std::is_same_v<T, lwb::Fp8E5m2>) {
    return _mm_slli_epi16(x, 8);
  } else {
    const __m128i a = _mm_slli_epi16(x, 7);
    const __m128i h = _mm_add_epi16(a, _mm_and_si128(a, _mm_set1_epi16(0x4000)));
    const __m128i nan = _mm_cmpeq_epi16(_mm_and_si128(x, _mm_set1_epi16(0x7f)), _mm_set1_epi16(0x7f));
    return _mm_or_si128(h, _mm_and_si128(nan, _mm_set1_epi16(0x7c00)));
  }
}

template <typename T>
inline __m256i fp8ToHalf(__m256i x) {  // 16 lanes; E4M3's NaN code left to the caller
  if constexpr (std::is_same_v<T, lwb::Fp8E5m2>) {
    return _mm256_slli_epi16(x, 8);
  } else {
    const __m256i a = _mm256_slli_epi16(x, 7);
    return _mm256_add_epi16(a, _mm256_and_si256(a, _mm256_set1_epi16(0x4000)));
  }
}
