// Scalar quantized dot products (the reference the SIMD versions are tested against)
// and the per-ISA dispatch.
#include <array>

#include "engine/common/error.h"
#include "engine/exec/cpu/quant_kernels.h"
#include "engine/model/quant.h"

namespace lwb {

namespace {

float dotQ8_0(const BlockQ8_0* w, const BlockQ8_0* x, int nb) {
  float sum = 0.0f;
  for (int b = 0; b < nb; ++b) {
    int isum = 0;
    for (int j = 0; j < kQk; ++j) isum += int(w[b].qs[j]) * int(x[b].qs[j]);
    sum += halfToFloat(w[b].d) * halfToFloat(x[b].d) * float(isum);
  }
  return sum;
}

// x = d·sc_j·q − dmin·m_j per sub-block j, so per super-block
// Σ w·y = dx·d·Σ_j sc_j Σ q·y − dx·dmin·Σ_j m_j Σ y, the last sums from Q8_K's bsums.
float dotQ4_K(const BlockQ4_K* w, const BlockQ8_K* x, int nb) {
  float sum = 0.0f, mins = 0.0f;
  for (int b = 0; b < nb; ++b) {
    int sumi = 0, summ = 0;
    for (int j = 0; j < 8; ++j) {
      uint8_t sc, m;
      unpackScaleMinK4(j, w[b].scales, &sc, &m);
      const uint8_t* q = w[b].qs + 32 * (j / 2);
      const int8_t* y = x[b].qs + 32 * j;
      int isum = 0;
      for (int l = 0; l < 32; ++l) isum += ((j % 2 == 0) ? (q[l] & 0xF) : (q[l] >> 4)) * int(y[l]);
      sumi += int(sc) * isum;
      summ += int(m) * (x[b].bsums[2 * j] + x[b].bsums[2 * j + 1]);
    }
    sum += x[b].d * halfToFloat(w[b].d) * float(sumi);
    mins += x[b].d * halfToFloat(w[b].dmin) * float(summ);
  }
  return sum - mins;
}

template <typename W, typename X, float (*Dot)(const W*, const X*, int)>
void tile(const W* const* w, const X* const* x, int nb, float* y, size_t ldy) {
  for (int r = 0; r < kQuantTileRows; ++r)
    for (int c = 0; c < kQuantTileCols; ++c) y[size_t(r) * ldy + size_t(c)] = Dot(w[c], x[r], nb);
}

void quantizeQ8_0(const float* x, BlockQ8_0* out, int n) { quantizeRow(GgmlType::Q8_0, x, out, n); }
void quantizeQ8_K(const float* x, BlockQ8_K* out, int n) { quantizeRow(GgmlType::Q8_K, x, out, n); }

}  // namespace

const QuantKernels& scalarQuantKernels() {
  static const QuantKernels k{Isa::Scalar, false, &dotQ8_0, &dotQ4_K, &tile<BlockQ8_0, BlockQ8_0, dotQ8_0>,
                              &tile<BlockQ4_K, BlockQ8_K, dotQ4_K>, &quantizeQ8_0, &quantizeQ8_K};
  return k;
}

// Resolved once: the CPUID behind isaSupported traps to the hypervisor in a VM, far too
// slow for every GEMM call of a decode step.
const QuantKernels& quantKernels(Isa isa) {
  static const std::array<const QuantKernels*, 3> tables = [] {
    std::array<const QuantKernels*, 3> t{};
    if (isaSupported(Isa::Scalar)) t[0] = &scalarQuantKernels();
    if (isaSupported(Isa::Avx2)) t[1] = &avx2QuantKernels();
    if (isaSupported(Isa::Avx512)) t[2] = avx512QuantKernels().dotQ8_0 ? &avx512QuantKernels() : &avx2QuantKernels();
    return t;
  }();
  const QuantKernels* k = tables[size_t(isa)];
  check(k != nullptr, std::string("quantized kernels: this CPU does not support ") + isaName(isa));
  return *k;
}

bool cpuHasAvx512Vnni() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512vnni") && isaSupported(Isa::Avx512);
#else
  return false;
#endif
}

}  // namespace lwb
