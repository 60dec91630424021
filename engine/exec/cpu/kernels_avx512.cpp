// AVX-512 kernels (W = 16): dot products, elementwise and attention; the GEMM tiles are
// in gemm_avx512.cpp. Standard headers come before the target region so that no inline
// library code is emitted with AVX-512 instructions for use elsewhere.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "engine/exec/cpu/kernels.h"

#if defined(__x86_64__)
#include "engine/exec/cpu/avx512_common.h"

LWB_AVX512_BEGIN
#include "engine/exec/cpu/attend_row.h"
#include "engine/exec/cpu/fp8_widen_x86.h"

namespace lwb {
namespace {

using namespace avx512;

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

// 16 KV elements from p: f32, bf16 widened to f32 (a shift into the high half), or FP8
// through f16 (fp8_widen_x86.h); all exact. Masked lanes are zero.
inline __m512 widenBf16(__m256i h) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)); }
template <bool Masked, typename T>
inline __m512 loadKv(__mmask16 m, const T* p) {
  if constexpr (std::is_same_v<T, float>) {
    return Masked ? _mm512_maskz_loadu_ps(m, p) : _mm512_loadu_ps(p);
  } else if constexpr (kIsFp8<T>) {
    const __m128i codes = Masked ? _mm_maskz_loadu_epi8(m, p) : _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m512 f = _mm512_cvtph_ps(fp8ToHalf<T>(_mm256_cvtepu8_epi16(codes)));
    if constexpr (std::is_same_v<T, Fp8E5m2>) return f;
    const __mmask16 nan = _mm_cmpeq_epi8_mask(_mm_or_si128(codes, _mm_set1_epi8(char(0x80))), _mm_set1_epi8(-1));
    return _mm512_mask_mov_ps(_mm512_mul_ps(f, _mm512_set1_ps(kE4m3Scale)), nan, _mm512_set1_ps(NAN));
  } else {
    return widenBf16(Masked ? _mm256_maskz_loadu_epi16(m, p) : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
}

// Keys in chunks of up to 16 slots inside one block: chunk c is slots [o, o + 16) of block
// c / chunksPerBlock, o = (c % chunksPerBlock) * 16, cut at the block end and at n.
template <typename T>
struct KeyChunk {
  const T* kt = nullptr;  // K of the chunk's first slot, rows blockSize apart
  int j = 0;                  // its position
  __mmask16 mask = 0;
};

template <typename T>
inline KeyChunk<T> keyChunk(const PagedKv& kv, int chunksPerBlock, int c, int n) {
  const int b = c / chunksPerBlock, o = (c % chunksPerBlock) * kW;
  KeyChunk<T> k;
  k.j = b * kv.blockSize + o;
  if (k.j >= n) return k;
  k.kt = static_cast<const T*>(kv.k) + size_t(kv.blockTable[b]) * kv.kBlockStride + size_t(o);
  k.mask = tailMask(std::min({kW, kv.blockSize - o, n - k.j}));
  return k;
}

// GN heads × NC key chunks: per head and chunk two FMA chains (i < d/2, i >= d/2), so each
// head's q broadcast feeds NC chunks. Masked loads only for a partial chunk: GCC keeps the
// accumulators of a loop with masked-load builtins in memory. The tiles are never inlined
// into their callers: inlined, GCC allocates their registers worse (`bench_quant_kernels
// --attention` measures it).
template <bool Masked, typename T>
inline __m512 loadKeys(const KeyChunk<T>& c, const T* p) {
  return loadKv<Masked>(c.mask, p);
}

// Each tile also prefetches the keys of the next NC chunks (`next`, the same rows as it
// reads): in a decode batch every row has its own sequence, whose blocks lie anywhere in the
// cache, and the hardware prefetchers stop at each block. Into L2 (T1), not L1: the L1's
// few miss buffers capped a core's prefetches at ~10 GB/s from memory, where L2 takes
// ~18 (K and V alike; `bench_quant_kernels --attention-dram`, bf16 cache: 10.6 → 17-20 GB/s
// with the V lead below, a streaming read 21).
template <typename T, int GN, int NC, bool Masked>
[[gnu::noinline]] void scoresTile(const float* q, int d, const KeyChunk<T>* ch, const KeyChunk<T>* next, size_t ldk,
                                  float scale, float* s, size_t lds) {
  const int h = d / 2;
  const T* pf[NC];
  for (int c = 0; c < NC; ++c) pf[c] = next[c].kt != nullptr ? next[c].kt : ch[c].kt;
  __m512 acc[GN][NC][2];
  for (int g = 0; g < GN; ++g)
    for (int c = 0; c < NC; ++c) acc[g][c][0] = acc[g][c][1] = _mm512_setzero_ps();
  for (int i = 0; i < h; ++i) {
    __m512 k0[NC], k1[NC];
    for (int c = 0; c < NC; ++c) {
      _mm_prefetch(reinterpret_cast<const char*>(pf[c] + size_t(i) * ldk), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char*>(pf[c] + size_t(i + h) * ldk), _MM_HINT_T1);
      k0[c] = loadKeys<Masked>(ch[c], ch[c].kt + size_t(i) * ldk);
      k1[c] = loadKeys<Masked>(ch[c], ch[c].kt + size_t(i + h) * ldk);
      if constexpr (GN > 1) inRegister(k0[c]), inRegister(k1[c]);
    }
    for (int g = 0; g < GN; ++g) {
      const __m512 qa = _mm512_set1_ps(q[g * d + i]), qb = _mm512_set1_ps(q[g * d + i + h]);
      for (int c = 0; c < NC; ++c) {
        acc[g][c][0] = _mm512_fmadd_ps(qa, k0[c], acc[g][c][0]);
        acc[g][c][1] = _mm512_fmadd_ps(qb, k1[c], acc[g][c][1]);
      }
    }
  }
  if (d % 2)
    for (int c = 0; c < NC; ++c) {
      const __m512 k1 = loadKeys<Masked>(ch[c], ch[c].kt + size_t(d - 1) * ldk);
      for (int g = 0; g < GN; ++g) acc[g][c][1] = _mm512_fmadd_ps(_mm512_set1_ps(q[g * d + d - 1]), k1, acc[g][c][1]);
    }
  for (int g = 0; g < GN; ++g)
    for (int c = 0; c < NC; ++c)
      _mm512_mask_storeu_ps(s + size_t(g) * lds + size_t(ch[c].j), ch[c].mask,
                            _mm512_mul_ps(_mm512_add_ps(acc[g][c][0], acc[g][c][1]), _mm512_set1_ps(scale)));
}

template <int GN, typename T>
void scoresHeads(const float* q, int d, const PagedKv& kv, int n, float scale, float* s, size_t lds) {
  const int chunksPerBlock = (kv.blockSize + kW - 1) / kW;
  KeyChunk<T> ch[2] = {keyChunk<T>(kv, chunksPerBlock, 0, n), keyChunk<T>(kv, chunksPerBlock, 1, n)};
  for (int c = 0; ch[0].j < n; c += 2) {
    const KeyChunk<T> next[2] = {keyChunk<T>(kv, chunksPerBlock, c + 2, n), keyChunk<T>(kv, chunksPerBlock, c + 3, n)};
    const size_t ldk = size_t(kv.blockSize);
    if (ch[1].j >= n) {
      if (ch[0].mask == 0xffff) scoresTile<T, GN, 1, false>(q, d, ch, next, ldk, scale, s, lds);
      else scoresTile<T, GN, 1, true>(q, d, ch, next, ldk, scale, s, lds);
    } else {
      if ((ch[0].mask & ch[1].mask) == 0xffff) scoresTile<T, GN, 2, false>(q, d, ch, next, ldk, scale, s, lds);
      else scoresTile<T, GN, 2, true>(q, d, ch, next, ldk, scale, s, lds);
    }
    ch[0] = next[0], ch[1] = next[1];
  }
}

// GN heads × NV·16 output dims from i0: Σ_j p[g][j] · V_j, sequential over j, held in
// registers across blocks, then times invSum[g]. The last vector is masked only when d
// ends inside it (see scoresTile on masked loads).
template <typename T, int GN, int NV, bool MaskLast>
[[gnu::noinline]] void accumulateTile(const float* p, size_t ldp, const PagedKv& kv, int n, int d, int i0, const float* invSum,
                    float* out) {
  __mmask16 m[NV];
  for (int t = 0; t < NV; ++t) m[t] = d - i0 - t * kW >= kW ? __mmask16(0xffff) : tailMask(d - i0 - t * kW);
  __m512 acc[GN][NV];
  for (int g = 0; g < GN; ++g)
    for (int t = 0; t < NV; ++t) acc[g][t] = _mm512_setzero_ps();
  // `ahead` runs two blocks ahead of `rows` and prefetches into L2 (see scoresTile; one
  // block ahead read ~15 % slower from memory, four no faster).
  detail::PagedRows<T> rows(kv, i0), ahead(kv, i0);
  const int lead = std::min(n, 2 * kv.blockSize);
  for (int j = 0; j < lead; ++j) ahead.next();
  for (int j = 0; j < n; ++j) {
    if (j + lead < n) {
      const T* pf = ahead.next();
      for (int t = 0; t < NV; ++t) _mm_prefetch(reinterpret_cast<const char*>(pf + t * kW), _MM_HINT_T1);
    }
    const T* vrow = rows.next();
    // One V vector at a time, kept in a register (inRegister on an element of a V array
    // made GCC keep the accumulators in memory); one FMA per accumulator and position, so
    // the order of every sum is unchanged.
    for (int t = 0; t < NV; ++t) {
      __m512 v = MaskLast && t == NV - 1 ? loadKv<true>(m[t], vrow + t * kW) : loadKv<false>(m[t], vrow + t * kW);
      if constexpr (GN > 1) inRegister(v);
      for (int g = 0; g < GN; ++g) acc[g][t] = _mm512_fmadd_ps(_mm512_set1_ps(p[size_t(g) * ldp + size_t(j)]), v, acc[g][t]);
    }
  }
  for (int g = 0; g < GN; ++g)
    for (int t = 0; t < NV; ++t)
      _mm512_mask_storeu_ps(out + size_t(g) * size_t(d) + size_t(i0 + t * kW), m[t],
                            _mm512_mul_ps(acc[g][t], _mm512_set1_ps(invSum[g])));
}

template <int GN, typename T>
void accumulateHeads(const float* p, size_t ldp, const PagedKv& kv, int n, int d, const float* invSum, float* out) {
  for (int i0 = 0; i0 < d; i0 += 4 * kW) {
    const int nv = std::min(4, (d - i0 + kW - 1) / kW);
    if ((d - i0) % kW == 0 || d - i0 > 4 * kW) {
      switch (nv) {
        case 1: accumulateTile<T, GN, 1, false>(p, ldp, kv, n, d, i0, invSum, out); break;
        case 2: accumulateTile<T, GN, 2, false>(p, ldp, kv, n, d, i0, invSum, out); break;
        case 3: accumulateTile<T, GN, 3, false>(p, ldp, kv, n, d, i0, invSum, out); break;
        default: accumulateTile<T, GN, 4, false>(p, ldp, kv, n, d, i0, invSum, out); break;
      }
    } else {
      switch (nv) {
        case 1: accumulateTile<T, GN, 1, true>(p, ldp, kv, n, d, i0, invSum, out); break;
        case 2: accumulateTile<T, GN, 2, true>(p, ldp, kv, n, d, i0, invSum, out); break;
        case 3: accumulateTile<T, GN, 3, true>(p, ldp, kv, n, d, i0, invSum, out); break;
        default: accumulateTile<T, GN, 4, true>(p, ldp, kv, n, d, i0, invSum, out); break;
      }
    }
  }
}

float maxOf(const float* s, int n) {
  __m512 m = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  int j = 0;
  for (; j + kW <= n; j += kW) m = _mm512_max_ps(m, _mm512_loadu_ps(s + j));
  if (j < n) m = _mm512_mask_max_ps(m, tailMask(n - j), m, _mm512_maskz_loadu_ps(tailMask(n - j), s + j));
  return _mm512_reduce_max_ps(m);
}

template <typename T>
struct Avx512AttentionTiles {
  template <int GN>
  static void scores(const float* q, int d, const PagedKv& kv, int n, float scale, float* s, size_t lds) {
    scoresHeads<GN, T>(q, d, kv, n, scale, s, lds);
  }
  template <int GN>
  static void accumulate(const float* p, size_t ldp, const PagedKv& kv, int n, int d, const float* invSum, float* out) {
    accumulateHeads<GN, T>(p, ldp, kv, n, d, invSum, out);
  }
  static float maxOf(const float* s, int n) { return lwb::maxOf(s, n); }
  static float expAndSum(float* s, int n, float max) { return lwb::expAndSum(s, n, max); }
};

void attendRow(const float* q, int G, int d, const PagedKv& kv, int n, float scale, float* scratch, float* out) {
  detail::attendRowKv<Avx512AttentionTiles>(q, G, d, kv, n, scale, scratch, out);
}

template <typename T>
struct Avx512Widen {
  static void run(const T* p, size_t n, float* dst) {
    size_t i = 0;
    for (; i + kW <= n; i += kW) _mm512_storeu_ps(dst + i, loadKv<false>(__mmask16(0xffff), p + i));
    if (i < n) {
      const __mmask16 m = tailMask(int(n - i));
      _mm512_mask_storeu_ps(dst + i, m, loadKv<true>(m, p + i));
    }
  }
};

void widenKv(DType type, const void* src, size_t n, float* dst) { detail::widenKvAs<Avx512Widen>(type, src, n, dst); }

}  // namespace

const CpuKernels& avx512Kernels() {
  static const CpuKernels k{Isa::Avx512, &avx512::gemmBlock, &dot, &axpy, &expAndSum, &siluMul, &attendRow,
                            &avx512::panelGroup, &widenKv};
  return k;
}

}  // namespace lwb
LWB_AVX512_END

#else
namespace lwb {
const CpuKernels& avx512Kernels() { return scalarKernels(); }
}  // namespace lwb
#endif
