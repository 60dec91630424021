// AVX-512 quantized dot products: VNNI's dpbusd on 256-bit vectors, and 512-bit tiles for
// Q8_0, Q4_0 and Q5_0 prefill (Q5_0's two weight columns per register, Q8_0's and Q4_0's
// sixteen; quant_tile_avx512.h):
// cache-resident weights are read faster by them (`bench_quant_kernels` and `bench_cpu
// --only austen --runs Q8_0` measure it). Without VNNI the AVX2 kernels run (same
// integers, same bits).
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "engine/common/dtype.h"
#include "engine/exec/cpu/quant_kernels.h"
#include "engine/model/quant.h"

#if defined(__x86_64__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")
#endif
#include <immintrin.h>

namespace lwb {
namespace {
constexpr bool kVnni = true;
#include "engine/exec/cpu/quant_dot_x86.h"
#include "engine/exec/cpu/quant_dot_x86_more.h"
#include "engine/exec/cpu/quant_tile_x86.h"
#include "engine/exec/cpu/quant_tile_avx512.h"

// The 512-bit tiles replace the 256-bit ones of these three types (the prefill shapes that
// measured fastest in bench_quant_kernels).
constexpr QuantTileDims kZmmDimsLegacy{8, 4}, kZmmDimsBlockInt{8, 16};
// The legacy types' decode: quads of weight rows per call.
constexpr int kDecodeQuads = kLegacyDecodeRows / 4;

QuantKernels avx512Table() {
  constexpr int R = kZmmDimsLegacy.rows, C = kZmmDimsLegacy.cols;
  QuantKernels k = x86QuantKernels(Isa::Avx512);
  k.tileQ8_0 = &tileBlockIntZmm<BlockQ8_0, kZmmDimsBlockInt.rows, kZmmDimsBlockInt.cols>;
  k.tileDimsQ8_0 = kZmmDimsBlockInt;
  k.tileQ4_0 = &tileBlockIntZmm<BlockQ4_0, kZmmDimsBlockInt.rows, kZmmDimsBlockInt.cols>;
  k.tileDimsQ4_0 = kZmmDimsBlockInt;
  k.tileQ5_0 = &tileLegacySignedZmm<BlockQ5_0, 5, 16, R, C>;
  k.tileDimsQ5_0 = kZmmDimsLegacy;
  constexpr int D = kLegacyDecodeRows;
  k.rowsQ4_0 = {&rowsQ4_0Zmm, 8};
  k.rowsQ4_1 = {&eachRowGroup<BlockQ4_1, &rowsLegacyZmm<BlockQ4_1, 4, 0, true, kDecodeQuads>, D>, D};
  k.rowsQ5_0 = {&eachRowGroup<BlockQ5_0, &rowsLegacyZmm<BlockQ5_0, 5, 16, false, kDecodeQuads>, D>, D};
  k.rowsQ5_1 = {&eachRowGroup<BlockQ5_1, &rowsLegacyZmm<BlockQ5_1, 5, 0, true, kDecodeQuads>, D>, D};
  return k;
}
}  // namespace

const QuantKernels& avx512QuantKernels() {
  static const QuantKernels vnni = avx512Table();
  static const QuantKernels none{};
  static const bool hasVnni = cpuHasAvx512Vnni();
  return hasVnni ? vnni : none;
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
const QuantKernels& avx512QuantKernels() {
  static const QuantKernels none{};
  return none;
}
}  // namespace lwb
#endif
