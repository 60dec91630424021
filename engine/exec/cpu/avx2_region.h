#pragma once
// The target region of the AVX2 kernel files (kernels_avx2.cpp, gemm_avx2.cpp,
// kernels_attention_avx2.cpp, quant_kernels_avx2.cpp): functions defined between
// LWB_AVX2_BEGIN and LWB_AVX2_END are compiled for AVX2, FMA and F16C; the code outside,
// standard headers' inline functions included, stays portable. Include the standard
// headers first, then open the region and include <immintrin.h> inside it.

#if defined(__clang__)  // clang has no GCC target pragma; this is its equivalent
#define LWB_AVX2_BEGIN _Pragma("clang attribute push(__attribute__((target(\"avx2,fma,f16c\"))), apply_to = function)")
#define LWB_AVX2_END _Pragma("clang attribute pop")
#else
// GCC 12 reports its own _mm*_undefined_*() self-initialisation under a target pragma.
#define LWB_AVX2_BEGIN                                        \
  _Pragma("GCC push_options")                                 \
  _Pragma("GCC diagnostic push")                              \
  _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")       \
  _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"") \
  _Pragma("GCC target(\"avx2,fma,f16c\")")
#define LWB_AVX2_END _Pragma("GCC diagnostic pop") _Pragma("GCC pop_options")
#endif
