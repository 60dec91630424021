// AVX2 quantized dot products (body in quant_dot_x86.h).
#include <cstdint>
#include <cstring>

#include "engine/common/dtype.h"
#include "engine/exec/cpu/quant_kernels.h"
#include "engine/model/quant.h"

#if defined(__x86_64__)
#include "engine/exec/cpu/avx2_region.h"

LWB_AVX2_BEGIN
#include <immintrin.h>

namespace lwb {
namespace {
constexpr bool kVnni = false;
#include "engine/exec/cpu/quant_dot_x86.h"
#include "engine/exec/cpu/quant_dot_x86_more.h"
#include "engine/exec/cpu/quant_tile_x86.h"
}  // namespace

const QuantKernels& avx2QuantKernels() {
  static const QuantKernels k = x86QuantKernels(Isa::Avx2);
  return k;
}

}  // namespace lwb

LWB_AVX2_END

#else
namespace lwb {
const QuantKernels& avx2QuantKernels() { return scalarQuantKernels(); }
}  // namespace lwb
#endif
