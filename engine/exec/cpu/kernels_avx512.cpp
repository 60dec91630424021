// AVX-512 kernels (W = 16). Standard headers come before the target pragma so that no
// inline library code is emitted with AVX-512 instructions for use elsewhere.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "engine/exec/cpu/kernels.h"

#if defined(__x86_64__)
#if defined(__clang__)  // clang has no GCC target pragma; this is its equivalent
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
// GCC 12 reports its own _mm*_undefined_*() self-initialisation under a target pragma.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")
#endif
#include <immintrin.h>

#include "engine/exec/cpu/attend_row.h"

namespace lwb {
namespace {

constexpr int kW = 16;
static_assert(kPanel == kW, "one zmm register per packed panel row");
constexpr int kRowTile = 6;       // register tile: 6 rows × 4 panels = 24 accumulators
constexpr int kPanelTile = 4;
constexpr int kDecodePanels = 8;  // one row: 8 independent FMA chains, 8 panel streams
constexpr int kKBlock = 256;      // K block of the multi-row path: converted panels stay in L1/L2
constexpr int kFewRows = 16;      // up to here, converting panels to f32 scratch first does not pay

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

// One register tile of R rows × C panels over kn steps of k. x points at (row 0, first k),
// w at (panel 0, first k) with panels `stride` elements apart, y at (row 0, panel 0's first
// column). The accumulators start at zero (`first`) or continue from y; the last panel
// stores only `lastMask`'s columns.
template <DType D, int R, int C>
void tile(const float* x, size_t ldx, const void* w, size_t stride, float* y, size_t ldy, int kn, bool first,
          __mmask16 lastMask) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c)
      acc[r][c] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(c == C - 1 ? lastMask : 0xffff, y + size_t(r) * ldy + size_t(c) * kW);
  for (int k = 0; k < kn; ++k) {
    __m512 wv[C];
    for (int c = 0; c < C; ++c) wv[c] = loadW<D>(w, size_t(c) * stride + size_t(k) * kW);
    for (int r = 0; r < R; ++r) {
      const __m512 xv = _mm512_set1_ps(x[size_t(r) * ldx + size_t(k)]);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_fmadd_ps(xv, wv[c], acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) _mm512_mask_storeu_ps(y + size_t(r) * ldy + size_t(c) * kW, c == C - 1 ? lastMask : 0xffff, acc[r][c]);
}

using TileFn = void (*)(const float*, size_t, const void*, size_t, float*, size_t, int, bool, __mmask16);

template <DType D, int R, int... Cs>
constexpr std::array<TileFn, sizeof...(Cs)> tilesOfRow(std::integer_sequence<int, Cs...>) {
  return {&tile<D, R, Cs + 1>...};
}

// kTiles<D>[R - 1][C - 1] for R in 1..kRowTile, C in 1..kPanelTile; row 1 up to kDecodePanels.
template <DType D>
TileFn tileFn(int R, int C) {
  static constexpr auto one = tilesOfRow<D, 1>(std::make_integer_sequence<int, kDecodePanels>{});
  static constexpr std::array<std::array<TileFn, kPanelTile>, kRowTile - 1> many{
      tilesOfRow<D, 2>(std::make_integer_sequence<int, kPanelTile>{}), tilesOfRow<D, 3>(std::make_integer_sequence<int, kPanelTile>{}),
      tilesOfRow<D, 4>(std::make_integer_sequence<int, kPanelTile>{}), tilesOfRow<D, 5>(std::make_integer_sequence<int, kPanelTile>{}),
      tilesOfRow<D, 6>(std::make_integer_sequence<int, kPanelTile>{})};
  return R == 1 ? one[size_t(C - 1)] : many[size_t(R - 2)][size_t(C - 1)];
}

// Tall tiles for 7..16 rows: up to 8 rows × 3 panels (24 accumulators). Each panel's
// 16-bit weights are converted once per tile and k, so a tile of more rows spends fewer of
// the FMA ports' slots on conversions than 6 × 4 does (3 per 24 FMAs instead of 4, and no
// thin remainder tile: 8 rows are one tile, not 6 + 2).
constexpr int kTallRows = 8, kTallPanels = 3;

template <DType D>
TileFn tallTileFn(int R, int C) {
  static constexpr std::array<std::array<TileFn, kTallPanels>, 3> t{  // R = 6, 7, 8 (see useTallTiles)
      tilesOfRow<D, 6>(std::make_integer_sequence<int, kTallPanels>{}), tilesOfRow<D, 7>(std::make_integer_sequence<int, kTallPanels>{}),
      tilesOfRow<D, 8>(std::make_integer_sequence<int, kTallPanels>{})};
  return t[size_t(R - 6)][size_t(C - 1)];
}

inline __mmask16 maskOf(int colEnd, int c0, int numPanels) {
  const int lastWidth = colEnd - (c0 + (numPanels - 1) * kW);
  return lastWidth >= kW ? __mmask16(0xffff) : tailMask(lastWidth);
}

// Where the tall tiles measured faster (a bf16 GEMM of K 1024, N 4096 on one core; f32
// weights convert nothing, so they keep 6 × 4): rows that split into
// tiles of 7 or 8 (7, 8, 13..16). 9..12 rows are two 6 × 4 tiles, which beat 3-panel tiles
// of 5 or 6 rows.
inline bool useTallTiles(int numRows) {
  return numRows > kRowTile && numRows <= 2 * kTallRows && (numRows % kTallRows == 0 || numRows % kTallRows >= 5);
}

// 7..16 rows: per group of kTallPanels panels, one or two balanced tiles of 6..8 rows.
template <DType D>
void tallRows(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  const size_t stride = size_t(a.K) * kW;
  const int colEnd = col0 + numCols;
  const int numTiles = (numRows + kTallRows - 1) / kTallRows;
  for (int c = col0; c < colEnd; c += kTallPanels * kW) {
    const int np = std::min(kTallPanels, (colEnd - c + kW - 1) / kW);
    const void* w = static_cast<const char*>(a.w) + size_t(c / kW) * stride * dtypeSize(D);
    for (int i = 0, r = row0; i < numTiles; ++i) {
      const int nr = numRows / numTiles + (i < numRows % numTiles ? 1 : 0);
      tallTileFn<D>(nr, np)(a.x + size_t(r) * a.ldx, a.ldx, w, stride, a.y + size_t(r) * a.ldy + size_t(c), a.ldy, a.K, true,
                            maskOf(colEnd, c, np));
      r += nr;
    }
  }
}

// Few rows (decode batches): per panel group, every row tile over all of K with the
// weights converted inline; the group's panels stay in L2 between row tiles.
template <DType D>
void fewRows(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  const size_t stride = size_t(a.K) * kW;
  const int groupPanels = numRows == 1 ? kDecodePanels : kPanelTile;
  const int colEnd = col0 + numCols;
  for (int c = col0; c < colEnd; c += groupPanels * kW) {
    const int np = std::min(groupPanels, (colEnd - c + kW - 1) / kW);
    const void* w = static_cast<const char*>(a.w) + size_t(c / kW) * stride * dtypeSize(D);
    for (int r = row0; r < row0 + numRows; r += kRowTile) {
      const int nr = std::min(kRowTile, row0 + numRows - r);
      tileFn<D>(nr, np)(a.x + size_t(r) * a.ldx, a.ldx, w, stride, a.y + size_t(r) * a.ldy + size_t(c), a.ldy, a.K, true,
                        maskOf(colEnd, c, np));
    }
  }
}

// Many rows: per panel group and K block, the panels converted to f32 once (thread-local
// scratch, the same values), then every row tile runs over them, continuing the sums in y.
template <DType D>
void manyRows(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  alignas(64) static thread_local float scratch[size_t(kPanelTile) * kKBlock * kW];
  const size_t stride = size_t(a.K) * kW;
  const int colEnd = col0 + numCols;
  for (int c = col0; c < colEnd; c += kPanelTile * kW) {
    const int np = std::min(kPanelTile, (colEnd - c + kW - 1) / kW);
    const __mmask16 mask = maskOf(colEnd, c, np);
    for (int k0 = 0; k0 < a.K; k0 += kKBlock) {
      const int kn = std::min(kKBlock, a.K - k0);
      const void* w = static_cast<const char*>(a.w) + (size_t(c / kW) * stride + size_t(k0) * kW) * dtypeSize(D);
      size_t wStride = stride;
      if constexpr (D != DType::F32) {
        for (int p = 0; p < np; ++p)
          for (int k = 0; k < kn; ++k)
            _mm512_store_ps(&scratch[(size_t(p) * kKBlock + size_t(k)) * kW], loadW<D>(w, size_t(p) * stride + size_t(k) * kW));
        w = scratch;
        wStride = size_t(kKBlock) * kW;
      }
      for (int r = 0; r < numRows; r += kRowTile) {
        const int nr = std::min(kRowTile, numRows - r);
        tileFn<DType::F32>(nr, np)(a.x + size_t(row0 + r) * a.ldx + size_t(k0), a.ldx, w, wStride,
                                   a.y + size_t(row0 + r) * a.ldy + size_t(c), a.ldy, kn, k0 == 0, mask);
      }
    }
  }
}

template <DType D>
void gemmBlockT(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  if (D != DType::F32 && useTallTiles(numRows)) tallRows<D>(a, row0, numRows, col0, numCols);
  else if (numRows <= kFewRows) fewRows<D>(a, row0, numRows, col0, numCols);
  else manyRows<D>(a, row0, numRows, col0, numCols);
}

void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  switch (a.wtype) {
    case DType::F32: gemmBlockT<DType::F32>(a, row0, numRows, col0, numCols); break;
    case DType::F16: gemmBlockT<DType::F16>(a, row0, numRows, col0, numCols); break;
    case DType::BF16: gemmBlockT<DType::BF16>(a, row0, numRows, col0, numCols); break;
  }
}

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

// Keys in chunks of up to 16 slots inside one block: chunk c is slots [o, o + 16) of block
// c / chunksPerBlock, o = (c % chunksPerBlock) * 16, cut at the block end and at n.
struct KeyChunk {
  const float* kt = nullptr;  // K of the chunk's first slot, rows blockSize apart
  int j = 0;                  // its position
  __mmask16 mask = 0;
};

inline KeyChunk keyChunk(const PagedKv& kv, int chunksPerBlock, int c, int n) {
  const int b = c / chunksPerBlock, o = (c % chunksPerBlock) * kW;
  KeyChunk k;
  k.j = b * kv.blockSize + o;
  if (k.j >= n) return k;
  k.kt = kv.k + size_t(kv.blockTable[b]) * kv.kBlockStride + size_t(o);
  k.mask = tailMask(std::min({kW, kv.blockSize - o, n - k.j}));
  return k;
}

// GN heads × NC key chunks: per head and chunk two FMA chains (i < d/2, i >= d/2), so each
// head's q broadcast feeds NC chunks. Masked loads only for a partial chunk: GCC keeps the
// accumulators of a loop with masked-load builtins in memory. The tiles are never inlined
// into their callers: inlined, GCC allocates their registers worse (11 % slower).
template <bool Masked>
inline __m512 loadKeys(const KeyChunk& c, const float* p) {
  if constexpr (Masked) return _mm512_maskz_loadu_ps(c.mask, p);
  else return _mm512_loadu_ps(p);
}

template <int GN, int NC, bool Masked>
[[gnu::noinline]] void scoresTile(const float* q, int d, const KeyChunk* ch, size_t ldk, float scale, float* s, size_t lds) {
  const int h = d / 2;
  __m512 acc[GN][NC][2];
  for (int g = 0; g < GN; ++g)
    for (int c = 0; c < NC; ++c) acc[g][c][0] = acc[g][c][1] = _mm512_setzero_ps();
  for (int i = 0; i < h; ++i) {
    __m512 k0[NC], k1[NC];
    for (int c = 0; c < NC; ++c) {
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

template <int GN>
void scoresHeads(const float* q, int d, const PagedKv& kv, int n, float scale, float* s, size_t lds) {
  const int chunksPerBlock = (kv.blockSize + kW - 1) / kW;
  for (int c = 0;; c += 2) {
    const KeyChunk ch[2] = {keyChunk(kv, chunksPerBlock, c, n), keyChunk(kv, chunksPerBlock, c + 1, n)};
    if (ch[0].j >= n) break;
    const size_t ldk = size_t(kv.blockSize);
    if (ch[1].j >= n) {
      if (ch[0].mask == 0xffff) scoresTile<GN, 1, false>(q, d, ch, ldk, scale, s, lds);
      else scoresTile<GN, 1, true>(q, d, ch, ldk, scale, s, lds);
    } else {
      if ((ch[0].mask & ch[1].mask) == 0xffff) scoresTile<GN, 2, false>(q, d, ch, ldk, scale, s, lds);
      else scoresTile<GN, 2, true>(q, d, ch, ldk, scale, s, lds);
    }
  }
}

// GN heads × NV·16 output dims from i0: Σ_j p[g][j] · V_j, sequential over j, held in
// registers across blocks, then times invSum[g]. The last vector is masked only when d
// ends inside it (see scoresTile on masked loads).
template <int GN, int NV, bool MaskLast>
[[gnu::noinline]] void accumulateTile(const float* p, size_t ldp, const PagedKv& kv, int n, int d, int i0, const float* invSum,
                    float* out) {
  __mmask16 m[NV];
  for (int t = 0; t < NV; ++t) m[t] = d - i0 - t * kW >= kW ? __mmask16(0xffff) : tailMask(d - i0 - t * kW);
  __m512 acc[GN][NV];
  for (int g = 0; g < GN; ++g)
    for (int t = 0; t < NV; ++t) acc[g][t] = _mm512_setzero_ps();
  detail::PagedRows rows(kv, i0);
  for (int j = 0; j < n; ++j) {
    const float* vrow = rows.next();
    __m512 v[NV];
    for (int t = 0; t < NV; ++t)
      v[t] = MaskLast && t == NV - 1 ? _mm512_maskz_loadu_ps(m[t], vrow + t * kW) : _mm512_loadu_ps(vrow + t * kW);
    if constexpr (GN > 1)
      for (int t = 0; t < NV; ++t) inRegister(v[t]);
    for (int g = 0; g < GN; ++g) {
      const __m512 pg = _mm512_set1_ps(p[size_t(g) * ldp + size_t(j)]);
      for (int t = 0; t < NV; ++t) acc[g][t] = _mm512_fmadd_ps(pg, v[t], acc[g][t]);
    }
  }
  for (int g = 0; g < GN; ++g)
    for (int t = 0; t < NV; ++t)
      _mm512_mask_storeu_ps(out + size_t(g) * size_t(d) + size_t(i0 + t * kW), m[t],
                            _mm512_mul_ps(acc[g][t], _mm512_set1_ps(invSum[g])));
}

template <int GN>
void accumulateHeads(const float* p, size_t ldp, const PagedKv& kv, int n, int d, const float* invSum, float* out) {
  for (int i0 = 0; i0 < d; i0 += 4 * kW) {
    const int nv = std::min(4, (d - i0 + kW - 1) / kW);
    if ((d - i0) % kW == 0 || d - i0 > 4 * kW) {
      switch (nv) {
        case 1: accumulateTile<GN, 1, false>(p, ldp, kv, n, d, i0, invSum, out); break;
        case 2: accumulateTile<GN, 2, false>(p, ldp, kv, n, d, i0, invSum, out); break;
        case 3: accumulateTile<GN, 3, false>(p, ldp, kv, n, d, i0, invSum, out); break;
        default: accumulateTile<GN, 4, false>(p, ldp, kv, n, d, i0, invSum, out); break;
      }
    } else {
      switch (nv) {
        case 1: accumulateTile<GN, 1, true>(p, ldp, kv, n, d, i0, invSum, out); break;
        case 2: accumulateTile<GN, 2, true>(p, ldp, kv, n, d, i0, invSum, out); break;
        case 3: accumulateTile<GN, 3, true>(p, ldp, kv, n, d, i0, invSum, out); break;
        default: accumulateTile<GN, 4, true>(p, ldp, kv, n, d, i0, invSum, out); break;
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

struct AttentionTiles {
  template <int GN>
  static void scores(const float* q, int d, const PagedKv& kv, int n, float scale, float* s, size_t lds) {
    scoresHeads<GN>(q, d, kv, n, scale, s, lds);
  }
  template <int GN>
  static void accumulate(const float* p, size_t ldp, const PagedKv& kv, int n, int d, const float* invSum, float* out) {
    accumulateHeads<GN>(p, ldp, kv, n, d, invSum, out);
  }
  static float maxOf(const float* s, int n) { return lwb::maxOf(s, n); }
  static float expAndSum(float* s, int n, float max) { return lwb::expAndSum(s, n, max); }
};

void attendRow(const float* q, int G, int d, const PagedKv& kv, int n, float scale, float* scratch, float* out) {
  detail::attendRow<AttentionTiles>(q, G, d, kv, n, scale, scratch, out);
}

}  // namespace

const CpuKernels& avx512Kernels() {
  static const CpuKernels k{Isa::Avx512, &gemmBlock, &dot, &axpy, &expAndSum, &siluMul, &attendRow};
  return k;
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
const CpuKernels& avx512Kernels() { return scalarKernels(); }
}  // namespace lwb
#endif
