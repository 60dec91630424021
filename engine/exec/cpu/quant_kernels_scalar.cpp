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

// Σ of the 32 int8 activations of a block (the partner of an offset m).
int sumQ8(const BlockQ8_0& x) {
  int s = 0;
  for (int j = 0; j < kQk; ++j) s += x.qs[j];
  return s;
}

// The 32 quants of a legacy block as ints: 4-bit (nibbles) or 5-bit (plus qh), unsigned.
void unpack4(const uint8_t* qs, int* q) {
  for (int j = 0; j < kQk / 2; ++j) q[j] = qs[j] & 0xF, q[j + kQk / 2] = qs[j] >> 4;
}
void unpack5(const uint8_t* qh4, const uint8_t* qs, int* q) {
  uint32_t qh = uint32_t(qh4[0]) | uint32_t(qh4[1]) << 8 | uint32_t(qh4[2]) << 16 | uint32_t(qh4[3]) << 24;
  unpack4(qs, q);
  for (int j = 0; j < kQk; ++j) q[j] |= int((qh >> j) & 1) << 4;
}

// x = d·(q − offset) (Q4_0: 8, Q5_0: 16) or d·q + m (Q4_1, Q5_1); Σ w·y per block =
// dw·dy·Σ(q − offset)·y  [+ m·dy·Σy].
template <typename B, int kBits, int kOffset, bool kHasMin>
float dotLegacy(const B* w, const BlockQ8_0* x, int nb) {
  float sum = 0.0f, mins = 0.0f;
  for (int b = 0; b < nb; ++b) {
    int q[kQk];
    if constexpr (kBits == 5) unpack5(w[b].qh, w[b].qs, q);
    else unpack4(w[b].qs, q);
    int isum = 0;
    for (int j = 0; j < kQk; ++j) isum += (q[j] - kOffset) * int(x[b].qs[j]);
    const float dy = halfToFloat(x[b].d);
    sum += halfToFloat(w[b].d) * dy * float(isum);
    if constexpr (kHasMin) mins += halfToFloat(w[b].m) * dy * float(sumQ8(x[b]));
  }
  return sum + mins;
}

// Q5_K: as Q4_K with a fifth bit per quant from qh.
float dotQ5_K(const BlockQ5_K* w, const BlockQ8_K* x, int nb) {
  float sum = 0.0f, mins = 0.0f;
  for (int b = 0; b < nb; ++b) {
    int sumi = 0, summ = 0;
    for (int j = 0; j < 8; ++j) {
      uint8_t sc, m;
      unpackScaleMinK4(j, w[b].scales, &sc, &m);
      const uint8_t* q = w[b].qs + 32 * (j / 2);
      const int8_t* y = x[b].qs + 32 * j;
      int isum = 0;
      for (int l = 0; l < 32; ++l) {
        const int hi = (w[b].qh[l] >> j & 1) << 4;
        isum += (((j % 2 == 0) ? (q[l] & 0xF) : (q[l] >> 4)) + hi) * int(y[l]);
      }
      sumi += int(sc) * isum;
      summ += int(m) * (x[b].bsums[2 * j] + x[b].bsums[2 * j + 1]);
    }
    sum += x[b].d * halfToFloat(w[b].d) * float(sumi);
    mins += x[b].d * halfToFloat(w[b].dmin) * float(summ);
  }
  return sum - mins;
}

// Q6_K: 16 sub-blocks of 16 with int8 scales, quants 0..63 offset by 32; the offset
// goes through Q8_K's sums of 16: Σ_j sc_j·(Σ q·y − 32·bsums_j).
float dotQ6_K(const BlockQ6_K* w, const BlockQ8_K* x, int nb) {
  float sum = 0.0f;
  for (int b = 0; b < nb; ++b) {
    int q[kQkK];
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = w[b].ql + 64 * half;
      const uint8_t* qh = w[b].qh + 32 * half;
      int* out = q + 128 * half;
      for (int l = 0; l < 32; ++l) {
        out[l] = (ql[l] & 0xF) | (qh[l] >> 0 & 3) << 4;
        out[l + 32] = (ql[l + 32] & 0xF) | (qh[l] >> 2 & 3) << 4;
        out[l + 64] = (ql[l] >> 4) | (qh[l] >> 4 & 3) << 4;
        out[l + 96] = (ql[l + 32] >> 4) | (qh[l] >> 6 & 3) << 4;
      }
    }
    int sumi = 0;
    for (int j = 0; j < 16; ++j) {
      int isum = 0;
      for (int l = 0; l < 16; ++l) isum += q[16 * j + l] * int(x[b].qs[16 * j + l]);
      sumi += int(w[b].scales[j]) * (isum - 32 * x[b].bsums[j]);
    }
    sum += x[b].d * halfToFloat(w[b].d) * float(sumi);
  }
  return sum;
}

template <typename W, typename X, float (*Dot)(const W*, const X*, int), int R, int C>
void tile(const W* const* w, const X* const* x, int nb, float* y, size_t ldy) {
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) y[size_t(r) * ldy + size_t(c)] = Dot(w[c], x[r], nb);
}

// dot and prefill tile of one type: the tile is the dot, output by output.
template <typename W, typename X, float (*Dot)(const W*, const X*, int)>
void set(float (*&dot)(const W*, const X*, int), QuantTileFn<W, X>& tileFn) {
  dot = Dot;
  tileFn = &tile<W, X, Dot, kQuantTileRows, kQuantTileCols>;
}

void quantizeQ8_0(const float* x, BlockQ8_0* out, int n) { quantizeRow(GgmlType::Q8_0, x, out, n); }
void quantizeQ8_K(const float* x, BlockQ8_K* out, int n) { quantizeRow(GgmlType::Q8_K, x, out, n); }

}  // namespace

const QuantKernels& scalarQuantKernels() {
  static const QuantKernels k = [] {
    QuantKernels t;
    set<BlockQ8_0, BlockQ8_0, dotQ8_0>(t.dotQ8_0, t.tileQ8_0);
    set<BlockQ4_0, BlockQ8_0, dotLegacy<BlockQ4_0, 4, 8, false>>(t.dotQ4_0, t.tileQ4_0);
    set<BlockQ4_1, BlockQ8_0, dotLegacy<BlockQ4_1, 4, 0, true>>(t.dotQ4_1, t.tileQ4_1);
    set<BlockQ5_0, BlockQ8_0, dotLegacy<BlockQ5_0, 5, 16, false>>(t.dotQ5_0, t.tileQ5_0);
    set<BlockQ5_1, BlockQ8_0, dotLegacy<BlockQ5_1, 5, 0, true>>(t.dotQ5_1, t.tileQ5_1);
    set<BlockQ4_K, BlockQ8_K, dotQ4_K>(t.dotQ4_K, t.tileQ4_K);
    set<BlockQ5_K, BlockQ8_K, dotQ5_K>(t.dotQ5_K, t.tileQ5_K);
    set<BlockQ6_K, BlockQ8_K, dotQ6_K>(t.dotQ6_K, t.tileQ6_K);
    t.quantizeQ8_0 = &quantizeQ8_0;
    t.quantizeQ8_K = &quantizeQ8_K;
    return t;
  }();
  return k;
}

// Resolved once: the CPUID behind isaSupported traps to the hypervisor in a VM, far too
// slow for every GEMM call of a decode step.
const QuantKernels& quantKernels(Isa isa) {
  static const std::array<const QuantKernels*, 4> tables = [] {
    std::array<const QuantKernels*, 4> t{};
    if (isaSupported(Isa::Scalar)) t[0] = &scalarQuantKernels();
    if (isaSupported(Isa::Avx2)) t[1] = &avx2QuantKernels();
    if (isaSupported(Isa::Avx512)) t[2] = avx512QuantKernels().dotQ8_0 ? &avx512QuantKernels() : &avx2QuantKernels();
    if (isaSupported(Isa::Avx512Bf16)) t[3] = t[2];  // the same quantized kernels as AVX-512
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
