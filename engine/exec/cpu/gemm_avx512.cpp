// AVX-512 GEMM tiles (layout and order in kernels.h): register tiles for few rows
// (decode batches, weights converted inline), tall tiles for 7..16 rows of 16-bit weights,
// and K-blocked tiles over converted panels for many rows (prefill). Standard headers come
// before the target pragma so that no inline library code is emitted with AVX-512
// instructions for use elsewhere.
#include <algorithm>
#include <array>
#include <cstdint>
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

#include "engine/exec/cpu/avx512_common.h"

namespace lwb::avx512 {
namespace {

constexpr int kRowTile = 6;       // register tile: 6 rows × 4 panels = 24 accumulators
constexpr int kPanelTile = 4;
constexpr int kDecodePanels = 8;  // one row: 8 independent FMA chains, 8 panel streams
constexpr int kKBlock = 256;      // K block of the multi-row path: converted panels stay in L1/L2
constexpr int kFewRows = 16;      // up to here, converting panels to f32 scratch first does not pay

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

}  // namespace

void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  switch (a.wtype) {
    case DType::F32: gemmBlockT<DType::F32>(a, row0, numRows, col0, numCols); break;
    case DType::F16: gemmBlockT<DType::F16>(a, row0, numRows, col0, numCols); break;
    case DType::BF16: gemmBlockT<DType::BF16>(a, row0, numRows, col0, numCols); break;
  }
}

}  // namespace lwb::avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif
#endif
