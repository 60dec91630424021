// AVX2 quantized dot products (body in quant_dot_x86.h).
#include <cstdint>
#include <cstring>

#include "engine/common/dtype.h"
#include "engine/exec/cpu/quant_kernels.h"
#include "engine/model/quant.h"

#if defined(__x86_64__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#endif
#include <immintrin.h>

namespace lwb {
namespace {
constexpr bool kVnni = false;
#include "engine/exec/cpu/quant_dot_x86.h"
#include "engine/exec/cpu/quant_dot_x86_more.h"
}  // namespace

const QuantKernels& avx2QuantKernels() {
  static const QuantKernels k{Isa::Avx2, false, &dotQ8_0, &dotQ4_K, &tileQ8_0, &tileQ4_K, &quantizeQ8_0, &quantizeQ8_K,
      &dotLegacySigned<BlockQ4_0, 4, 8>, &dotLegacyMin<BlockQ4_1, 4>, &dotLegacySigned<BlockQ5_0, 5, 16>,
      &dotLegacyMin<BlockQ5_1, 5>, &dotQ5_K, &dotQ6_K};
  return k;
}

}  // namespace lwb

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
namespace lwb {
const QuantKernels& avx2QuantKernels() { return scalarQuantKernels(); }
}  // namespace lwb
#endif
