// AVX2 + FMA attention tiles (W = 8) behind avx2Kernels().attendRow, for an f32 or a bf16
// KV cache (the bf16 elements are widened to f32 on load; the arithmetic is the f32
// path's). Standard headers come before the target pragma so that no inline library
// code is emitted with AVX2 instructions for use elsewhere.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "engine/exec/cpu/kernels.h"

#if defined(__x86_64__)
#include "engine/exec/cpu/avx2_region.h"

LWB_AVX2_BEGIN
#include <immintrin.h>

#include "engine/exec/cpu/attend_row.h"
#include "engine/exec/cpu/fp8_widen_x86.h"

namespace lwb {
namespace {

constexpr int kW = 8;

inline __m256i laneMask(int n) {  // lanes < n
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Keeps a loaded vector in a register: GCC otherwise folds a load that feeds several FMAs
// into each of them, and the loop becomes bound by loads instead of FMAs.
inline void inRegister(__m256& v) { asm("" : "+v"(v)); }

inline __m256 widenBf16(__m128i h) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)); }

// 8 KV elements from p (f32, or bf16 or FP8 widened exactly), of which the first `live` (lanes
// set in m) are read when Masked; the others are zero. Masked loads only where a vector
// is partial: GCC keeps the accumulators of a loop with mask-load builtins in memory.
template <bool Masked, typename T>
inline __m256 load(const T* p, __m256i m, int live) {
  if constexpr (std::is_same_v<T, float>) {
    if constexpr (Masked) return _mm256_maskload_ps(p, m);
    else return _mm256_loadu_ps(p);
  } else if constexpr (kIsFp8<T>) {  // through f16, exactly (fp8_widen_x86.h)
    alignas(16) uint8_t buf[16] = {};
    if constexpr (Masked) std::memcpy(buf, p, size_t(live));
    const __m128i codes = Masked ? _mm_load_si128(reinterpret_cast<const __m128i*>(buf))
                                 : _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    const __m256 f = _mm256_cvtph_ps(fp8ToHalf<T>(_mm_cvtepu8_epi16(codes)));
    return std::is_same_v<T, Fp8E4m3> ? _mm256_mul_ps(f, _mm256_set1_ps(kE4m3Scale)) : f;
  } else if constexpr (Masked) {  // AVX2 has no 16-bit masked load
    alignas(16) uint16_t buf[kW] = {};
    std::memcpy(buf, p, size_t(live) * sizeof(uint16_t));
    return widenBf16(_mm_load_si128(reinterpret_cast<const __m128i*>(buf)));
  } else {
    return widenBf16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
}

// Stores v's lanes in m when Masked, else all 8: a masked store (vmaskmovps) is
// microcoded on AMD's cores, many times a plain store's cost and no small share of a score
// tile's time (`bench_quant_kernels --attention` measures it).
template <bool Masked>
inline void store(float* p, __m256i m, __m256 v) {
  if constexpr (Masked) _mm256_maskstore_ps(p, m, v);
  else _mm256_storeu_ps(p, v);
}

// GN heads × 8 keys (one chunk inside a block, `m` its `live` lanes): two FMA chains per
// head (i < d/2, i >= d/2), see kernels.h. When `pf` is set (the next block's keys at the
// same offset), the tile also prefetches the rows it reads there: in a decode batch every
// row has its own sequence, whose blocks lie anywhere in the cache, the hardware
// prefetchers stop at each block, and the weights a step streams between two layers have
// evicted them (as kernels_avx512.cpp's tiles do; into L2 as they do, whose miss buffers
// keep more lines in flight than L1's: 8.3 → 9-12 GB/s from memory on one core).
template <typename T, int GN, bool Masked>
void scoresTile(const float* q, int d, const T* kt, const T* pf, size_t ldk, __m256i m, int live, float scale, float* s,
                size_t lds) {
  const int h = d / 2;
  __m256 acc[GN][2];
  for (int g = 0; g < GN; ++g) acc[g][0] = acc[g][1] = _mm256_setzero_ps();
  for (int i = 0; i < h; ++i) {
    if (pf != nullptr) {
      _mm_prefetch(reinterpret_cast<const char*>(pf + size_t(i) * ldk), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char*>(pf + size_t(i + h) * ldk), _MM_HINT_T1);
    }
    __m256 k0 = load<Masked>(kt + size_t(i) * ldk, m, live), k1 = load<Masked>(kt + size_t(i + h) * ldk, m, live);
    if constexpr (GN > 1) inRegister(k0), inRegister(k1);
    for (int g = 0; g < GN; ++g) {
      acc[g][0] = _mm256_fmadd_ps(_mm256_broadcast_ss(q + g * d + i), k0, acc[g][0]);
      acc[g][1] = _mm256_fmadd_ps(_mm256_broadcast_ss(q + g * d + i + h), k1, acc[g][1]);
    }
  }
  if (d % 2) {
    const __m256 k1 = load<Masked>(kt + size_t(d - 1) * ldk, m, live);
    for (int g = 0; g < GN; ++g) acc[g][1] = _mm256_fmadd_ps(_mm256_broadcast_ss(q + g * d + d - 1), k1, acc[g][1]);
  }
  for (int g = 0; g < GN; ++g) store<Masked>(s + size_t(g) * lds, m, _mm256_mul_ps(_mm256_add_ps(acc[g][0], acc[g][1]), _mm256_set1_ps(scale)));
}

// 16 keys from p as two vectors of 8 (f32, or bf16 widened exactly).
template <typename T>
__attribute__((always_inline)) inline void load16(const T* p, __m256& a, __m256& b) {
  if constexpr (std::is_same_v<T, float>) {
    a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + kW);
  } else {
    const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    a = widenBf16(_mm256_castsi256_si128(raw)), b = widenBf16(_mm256_extracti128_si256(raw, 1));
  }
}

// GN (1-3) heads × 16 keys, f32 or bf16 (a whole block of the cache, or 16 keys of a
// prefill run's widened block, f32): scoresTile's two FMA chains per head for
// each of the two 8-key halves, so every score is the same sum in the same order. Each
// broadcast of q serves 16 keys instead of 8: the 8-key tile issued about as many loads as
// FMAs (2 loads a cycle), this one 5 per 6 (`bench_quant_kernels --attention` measures
// it). Inlined: as a call, GCC kept its 12 accumulators in memory.
template <typename T, int GN>
__attribute__((always_inline)) inline void scoresTile16(const float* q, int d, const T* kt, const T* pf,
                                                       size_t ldk, float scale, float* s, size_t lds) {
  const int h = d / 2;
  // Chain 0 (k < h) and chain 1 (k >= h), each over the two 8-key halves a and b.
  __m256 c0a[GN], c0b[GN], c1a[GN], c1b[GN];
  for (int g = 0; g < GN; ++g) c0a[g] = c0b[g] = c1a[g] = c1b[g] = _mm256_setzero_ps();
  for (int i = 0; i < h; ++i) {
    if (pf != nullptr) {
      _mm_prefetch(reinterpret_cast<const char*>(pf + size_t(i) * ldk), _MM_HINT_T1);
      _mm_prefetch(reinterpret_cast<const char*>(pf + size_t(i + h) * ldk), _MM_HINT_T1);
    }
    __m256 ka, kb;
    load16(kt + size_t(i) * ldk, ka, kb);
    for (int g = 0; g < GN; ++g) {
      const __m256 qv = _mm256_broadcast_ss(q + g * d + i);
      c0a[g] = _mm256_fmadd_ps(qv, ka, c0a[g]);
      c0b[g] = _mm256_fmadd_ps(qv, kb, c0b[g]);
    }
    load16(kt + size_t(i + h) * ldk, ka, kb);
    for (int g = 0; g < GN; ++g) {
      const __m256 qv = _mm256_broadcast_ss(q + g * d + i + h);
      c1a[g] = _mm256_fmadd_ps(qv, ka, c1a[g]);
      c1b[g] = _mm256_fmadd_ps(qv, kb, c1b[g]);
    }
  }
  if (d % 2) {
    __m256 ka, kb;
    load16(kt + size_t(d - 1) * ldk, ka, kb);
    for (int g = 0; g < GN; ++g) {
      const __m256 qv = _mm256_broadcast_ss(q + g * d + d - 1);
      c1a[g] = _mm256_fmadd_ps(qv, ka, c1a[g]);
      c1b[g] = _mm256_fmadd_ps(qv, kb, c1b[g]);
    }
  }
  const __m256 sc = _mm256_set1_ps(scale);
  for (int g = 0; g < GN; ++g) {
    _mm256_storeu_ps(s + size_t(g) * lds, _mm256_mul_ps(_mm256_add_ps(c0a[g], c1a[g]), sc));
    _mm256_storeu_ps(s + size_t(g) * lds + kW, _mm256_mul_ps(_mm256_add_ps(c0b[g], c1b[g]), sc));
  }
}

// The V rows of block b's first `slots` positions (d elements each), which the Σ p·V tiles
// read once the softmax is done: fetched while the scores are computed, so that those
// tiles find them in cache. (Prefetching them one block ahead inside those tiles left too
// little time, and GCC then kept the tiles' accumulators in memory.)
template <typename T>
inline void prefetchValues(const PagedKv& kv, int b, int slots, int d) {
  const char* rows = static_cast<const char*>(kv.v) + size_t(kv.blockTable[b]) * kv.vBlockStride * sizeof(T);
  const size_t rowBytes = size_t(d) * sizeof(T), ld = kv.ldv * sizeof(T);
  for (int slot = 0; slot < slots; ++slot)
    for (size_t off = 0; off < rowBytes; off += 64) _mm_prefetch(rows + size_t(slot) * ld + off, _MM_HINT_T1);
}

template <int GN, typename T>
void scoresHeads(const float* q, int d, const PagedKv& kv, int n, float scale, float* s, size_t lds) {
  const int bs = kv.blockSize;
  const auto blockKeys = [&](int b) { return static_cast<const T*>(kv.k) + size_t(kv.blockTable[b]) * kv.kBlockStride; };
  for (int b = 0, j0 = 0; j0 < n; ++b, j0 += bs) {
    const T* kt = blockKeys(b);
    // The first chunk's rows start every row of the block's keys: it prefetches the next block.
    const T* next = j0 + bs < n ? blockKeys(b + 1) : nullptr;
    prefetchValues<T>(kv, b, std::min(bs, n - j0), d);
    for (int o = 0; o < bs && j0 + o < n;) {
      const int live = std::min(bs - o, n - j0 - o);
      const T* pf = o == 0 ? next : nullptr;
      if constexpr ((std::is_same_v<T, float> || std::is_same_v<T, uint16_t>) && GN <= 3) {
        if (live >= 2 * kW) {
          scoresTile16<T, GN>(q, d, kt + o, pf, size_t(bs), scale, s + j0 + o, lds);
          o += 2 * kW;
          continue;
        }
      }
      if (live >= kW) scoresTile<T, GN, false>(q, d, kt + o, pf, size_t(bs), laneMask(kW), kW, scale, s + j0 + o, lds);
      else scoresTile<T, GN, true>(q, d, kt + o, pf, size_t(bs), laneMask(live), live, scale, s + j0 + o, lds);
      o += kW;
    }
  }
}

// GN heads × NV·8 output dims from i0: Σ_j p[g][j] · V_j, sequential over j, held in
// registers across blocks, then times invSum[g]. Masked loads only when d ends inside a
// vector.
template <typename T, int GN, int NV, bool Masked>
void accumulateTile(const float* p, size_t ldp, const PagedKv& kv, int n, int d, int i0, const float* invSum,
                    float* out) {
  __m256i m[NV];
  int live[NV];
  for (int t = 0; t < NV; ++t) live[t] = std::min(kW, d - i0 - t * kW), m[t] = laneMask(live[t]);
  __m256 acc[GN][NV];
  for (int g = 0; g < GN; ++g)
    for (int t = 0; t < NV; ++t) acc[g][t] = _mm256_setzero_ps();
  detail::PagedRows<T> rows(kv, i0);
  for (int j = 0; j < n; ++j) {
    const T* vrow = rows.next();
    __m256 v[NV];
    for (int t = 0; t < NV; ++t) {
      v[t] = load<Masked>(vrow + t * kW, m[t], live[t]);
      if constexpr (GN > 1) inRegister(v[t]);
    }
    for (int g = 0; g < GN; ++g) {
      const __m256 pg = _mm256_broadcast_ss(p + size_t(g) * ldp + size_t(j));
      for (int t = 0; t < NV; ++t) acc[g][t] = _mm256_fmadd_ps(pg, v[t], acc[g][t]);
    }
  }
  for (int g = 0; g < GN; ++g)
    for (int t = 0; t < NV; ++t)
      store<Masked>(out + size_t(g) * size_t(d) + size_t(i0 + t * kW), m[t], _mm256_mul_ps(acc[g][t], _mm256_set1_ps(invSum[g])));
}

// Output vectors per Σ p·V tile for GN heads: GN × NV accumulators, the FMA chains a tile
// needs to keep both FMA ports busy at a latency of 4 (8 or more), with NV values and a
// broadcast within the 16 ymm registers. A widened cache (bf16, FP8) needs registers for
// the widening too, so 3 heads take 3 vectors for f32 and 2 for a widened cache
// (`bench_quant_kernels --attention` measures it). Every output is the same sum over j
// whatever NV.
template <typename T>
constexpr int accumulateVectors(int GN) {
  return GN <= 2 ? 4 : GN == 3 && std::is_same_v<T, float> ? 3 : 2;
}

template <int GN, typename T, int NV>
void accumulateChunk(const float* p, size_t ldp, const PagedKv& kv, int n, int d, int i0, const float* invSum, float* out) {
  if ((d - i0) % kW == 0 || d - i0 > NV * kW) accumulateTile<T, GN, NV, false>(p, ldp, kv, n, d, i0, invSum, out);
  else accumulateTile<T, GN, NV, true>(p, ldp, kv, n, d, i0, invSum, out);
}

template <int GN, typename T>
void accumulateHeads(const float* p, size_t ldp, const PagedKv& kv, int n, int d, const float* invSum, float* out) {
  constexpr int kMaxNV = accumulateVectors<T>(GN);
  for (int i0 = 0; i0 < d; i0 += kMaxNV * kW) {
    switch (std::min(kMaxNV, (d - i0 + kW - 1) / kW)) {
      case 1: accumulateChunk<GN, T, 1>(p, ldp, kv, n, d, i0, invSum, out); break;
      case 2: accumulateChunk<GN, T, 2>(p, ldp, kv, n, d, i0, invSum, out); break;
      case 3: if constexpr (kMaxNV >= 3) accumulateChunk<GN, T, 3>(p, ldp, kv, n, d, i0, invSum, out); break;
      default: if constexpr (kMaxNV >= 4) accumulateChunk<GN, T, 4>(p, ldp, kv, n, d, i0, invSum, out); break;
    }
  }
}

// The largest score, 8 lanes at a time (the scalar loop was one compare per score, each
// waiting for the last). The softmax only subtracts it, so which zero a max of +0 and -0
// returns changes no result (a NaN score makes the row NaN either way).
float maxOf(const float* s, int n) {
  __m256 m = _mm256_set1_ps(s[0]);
  int j = 0;
  for (; j + kW <= n; j += kW) m = _mm256_max_ps(m, _mm256_loadu_ps(s + j));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_movehdup_ps(h));
  float r = _mm_cvtss_f32(h);
  for (; j < n; ++j) r = s[j] > r ? s[j] : r;
  return r;
}

template <typename T>
struct Avx2AttentionTiles {
  template <int GN>
  static void scores(const float* q, int d, const PagedKv& kv, int n, float scale, float* s, size_t lds) {
    scoresHeads<GN, T>(q, d, kv, n, scale, s, lds);
  }
  template <int GN>
  static void accumulate(const float* p, size_t ldp, const PagedKv& kv, int n, int d, const float* invSum, float* out) {
    accumulateHeads<GN, T>(p, ldp, kv, n, d, invSum, out);
  }
  static float maxOf(const float* s, int n) { return lwb::maxOf(s, n); }
  // The AVX2 table's own expAndSum (kernels_avx2.cpp), as before the split.
  static float expAndSum(float* s, int n, float max) { return avx2Kernels().expAndSum(s, n, max); }
};

}  // namespace

void avx2AttendRow(const float* q, int G, int d, const PagedKv& kv, int n, float scale, float* scratch, float* out) {
  detail::attendRowKv<Avx2AttentionTiles>(q, G, d, kv, n, scale, scratch, out);
}

namespace {
template <typename T>
struct Avx2Widen {
  static void run(const T* p, size_t n, float* dst) {
    size_t i = 0;
    for (; i + kW <= n; i += kW) _mm256_storeu_ps(dst + i, load<false>(p + i, laneMask(kW), kW));
    if (i < n) {
      const int live = int(n - i);
      const __m256i m = laneMask(live);
      _mm256_maskstore_ps(dst + i, m, load<true>(p + i, m, live));
    }
  }
};
}  // namespace

void avx2WidenKv(DType type, const void* src, size_t n, float* dst) { detail::widenKvAs<Avx2Widen>(type, src, n, dst); }

}  // namespace lwb
LWB_AVX2_END

#endif
