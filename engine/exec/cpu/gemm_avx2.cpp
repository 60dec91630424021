// AVX2 + FMA + F16C GEMM tiles (W = 8; layout and order in kernels.h): register tiles
// over panels converted inline for few rows (decode batches), K-blocked tiles over
// converted panels for many rows. Standard headers come before the target pragma so that
// no inline library code is emitted with AVX2 instructions for use elsewhere.
#include <algorithm>
#include <cstdint>

#include "engine/exec/cpu/kernels.h"

#if defined(__x86_64__)
#include "engine/exec/cpu/avx2_region.h"

LWB_AVX2_BEGIN
#include <immintrin.h>

#include "engine/exec/cpu/tile_split.h"

namespace lwb::avx2 {
namespace {

constexpr int kW = 8;
constexpr int kV = kPanel / kW;   // vectors per packed panel row
constexpr int kRowTile = 6;       // register tile: 6 rows × 1 panel = 12 accumulators
constexpr int kDecodePanels = 4;  // one row: 8 independent FMA chains
constexpr int kKBlock = 256;      // K block of the multi-row path: converted panels stay in L1/L2
static_assert(kKBlock % 2 == 0, "K blocks start at even k: bf16 panels hold k pairs");
// Up to here, converting panels to f32 scratch first does not pay: converting the weights
// inline is at least as fast for this many rows (`bench_quant_kernels --gemm` measures it).
constexpr int kFewRows = 64;

// 8 consecutive weights as f32 (F32, F16; BF16 panels hold k pairs: loadPair below).
template <DType D>
inline __m256 loadW(const void* base, size_t i) {
  static_assert(D != DType::BF16, "bf16 panels hold k pairs");
  if constexpr (D == DType::F32) {
    return _mm256_loadu_ps(static_cast<const float*>(base) + i);
  } else {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(base) + i));
    return _mm256_cvtph_ps(h);
  }
}

// A bf16 k pair of 8 columns at element i of a panel (layout in kernels.h): lane j holds
// W[j, k] | W[j, k + 1] << 16; w_k = the lane shifted up, w_k+1 = its low half cleared.
inline __m256i loadPair(const void* base, size_t i) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(base) + i));
}
inline __m256 pairLow(__m256i v) { return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)); }
inline __m256 pairHigh(__m256i v, __m256i highHalves) { return _mm256_castsi256_ps(_mm256_and_si256(v, highHalves)); }
alignas(32) constexpr uint32_t kHighHalves[kW] = {0xffff0000u, 0xffff0000u, 0xffff0000u, 0xffff0000u,
                                                  0xffff0000u, 0xffff0000u, 0xffff0000u, 0xffff0000u};

// Lane masks (all bits set = lane used) of a panel's two vectors for `width` columns, and
// whether all 16 are: full panels load and store their accumulators plainly, since a
// masked store (vmaskmovps) is microcoded on AMD's cores, many times a plain store's cost.
struct PanelMask {
  __m256i m[kV];
  bool full = true;
};
inline PanelMask panelMask(int width) {
  PanelMask pm;
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int v = 0; v < kV; ++v) pm.m[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32(width - v * kW), lane);
  pm.full = width >= kPanel;
  return pm;
}

// Where a tile prefetches into L2 (Pf tiles): C regions pfStride bytes apart from p, of
// which it touches bytesPerK per k step (a whole panel row of the streamed dtype, 64 bytes
// of f32 or 32 of 16-bit weights, or a row tile's share of it).
struct Prefetch {
  const char* p = nullptr;
  size_t pfStride = 0;
  size_t bytesPerK = 0;
};

// One register tile of R rows × C panels over kn steps of k (see gemm_avx512.cpp's
// tile): accumulators from zero (`first`) or from y; the last panel masked by `last`.
template <DType D, int R, int C, bool Pf>
void tile(const float* x, size_t ldx, const void* w, size_t stride, float* y, size_t ldy, int kn, bool first,
          const PanelMask& last, const Prefetch& pf) {
  __m256 acc[R][C][kV];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c)
      for (int v = 0; v < kV; ++v) {
        float* yv = y + size_t(r) * ldy + size_t(c) * kPanel + size_t(v) * kW;
        acc[r][c][v] = first ? _mm256_setzero_ps() : c < C - 1 || last.full ? _mm256_loadu_ps(yv) : _mm256_maskload_ps(yv, last.m[v]);
      }
  // A plain load, not _mm256_broadcast_ss: that builtin may read any memory, so GCC kept
  // the accumulators in memory and stored them every k step.
  auto fmaRows = [&](const __m256 (&wv)[C][kV], int k) __attribute__((always_inline)) {
    for (int r = 0; r < R; ++r) {
      const __m256 xv = _mm256_set1_ps(x[size_t(r) * ldx + size_t(k)]);
      for (int c = 0; c < C; ++c)
        for (int v = 0; v < kV; ++v) acc[r][c][v] = _mm256_fmadd_ps(xv, wv[c][v], acc[r][c][v]);
    }
  };
  if constexpr (D == DType::BF16) {
    // A k pair per step, k's FMA then k + 1's for every accumulator (the same chain); each
    // half loads the pair (wHi: the same address, laundered so the loads stay separate
    // and no register is held across the FMAs). The 8 columns of vector v sit at 16v. The
    // mask of high halves is read from memory each step (its pointer laundered): a 6 × 1
    // tile has no 16th ymm register to keep it in, and GCC spilled accumulators instead.
    const void* wHi = w;
    asm("" : "+r"(wHi));
    const __m256i* highHalves = reinterpret_cast<const __m256i*>(kHighHalves);
    int k = 0;
    for (; k < kn; k += 2) {
      if constexpr (Pf)
        for (int c = 0; c < C; ++c) _mm_prefetch(pf.p + size_t(c) * pf.pfStride + size_t(k) * pf.bytesPerK, _MM_HINT_T1);
      asm("" : "+r"(highHalves));
      __m256 wv[C][kV];
      for (int c = 0; c < C; ++c)
        for (int v = 0; v < kV; ++v) wv[c][v] = pairLow(loadPair(w, size_t(c) * stride + size_t(k) * kPanel + size_t(v) * 2 * kW));
      fmaRows(wv, k);
      if (k + 1 == kn) break;  // an odd K's last k: the pad half is not used
      for (int c = 0; c < C; ++c)
        for (int v = 0; v < kV; ++v)
          wv[c][v] = pairHigh(loadPair(wHi, size_t(c) * stride + size_t(k) * kPanel + size_t(v) * 2 * kW), _mm256_load_si256(highHalves));
      fmaRows(wv, k + 1);
    }
  } else {
    for (int k = 0; k < kn; ++k) {
      if constexpr (Pf)
        for (int c = 0; c < C; ++c) _mm_prefetch(pf.p + size_t(c) * pf.pfStride + size_t(k) * pf.bytesPerK, _MM_HINT_T1);
      __m256 wv[C][kV];
      for (int c = 0; c < C; ++c)
        for (int v = 0; v < kV; ++v) wv[c][v] = loadW<D>(w, size_t(c) * stride + size_t(k) * kPanel + size_t(v) * kW);
      fmaRows(wv, k);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c)
      for (int v = 0; v < kV; ++v) {
        float* yv = y + size_t(r) * ldy + size_t(c) * kPanel + size_t(v) * kW;
        if (c < C - 1 || last.full) _mm256_storeu_ps(yv, acc[r][c][v]);
        else _mm256_maskstore_ps(yv, last.m[v], acc[r][c][v]);
      }
}

using TileFn = void (*)(const float*, size_t, const void*, size_t, float*, size_t, int, bool, const PanelMask&, const Prefetch&);

// The tile shapes: R × C panels with 8..12 accumulators (2C per row), except where R alone
// is smaller. An FMA's result is ready ~4 cycles after it issues and the cores retire two
// or more per cycle, so a tile needs at least 8 independent chains (a 2 × 1 tile has 4 and
// leaves half the FMA slots idle; more chains than 8 still help on some cores), and at
// most 12 accumulators, so that they, a broadcast and the weights fit the 16 ymm registers.
// `bench_quant_kernels --gemm` measures the tiles.
constexpr int maxPanels(int rows) { return rows == 1 ? kDecodePanels : rows <= 3 ? 2 : 1; }

// The tile for R rows × C panels, the prefetching one when pf.p is set.
template <DType D, bool Pf>
TileFn tileFnOf(int R, int C) {
  static constexpr TileFn one[kDecodePanels] = {&tile<D, 1, 1, Pf>, &tile<D, 1, 2, Pf>, &tile<D, 1, 3, Pf>, &tile<D, 1, 4, Pf>};
  static constexpr TileFn two[2] = {&tile<D, 2, 1, Pf>, &tile<D, 2, 2, Pf>};
  static constexpr TileFn three[2] = {&tile<D, 3, 1, Pf>, &tile<D, 3, 2, Pf>};
  static constexpr TileFn more[kRowTile - 3] = {&tile<D, 4, 1, Pf>, &tile<D, 5, 1, Pf>, &tile<D, 6, 1, Pf>};
  return R == 1 ? one[C - 1] : R == 2 ? two[C - 1] : R == 3 ? three[C - 1] : more[R - 4];
}
template <DType D>
TileFn tileFn(int R, int C, const Prefetch& pf) {
  return pf.p != nullptr ? tileFnOf<D, true>(R, C) : tileFnOf<D, false>(R, C);
}

inline int lastWidth(int colEnd, int c0, int numPanels) { return colEnd - (c0 + (numPanels - 1) * kPanel); }

// Few rows (decode batches): per panel group, every row tile over all of K with the
// weights converted inline; balanced row tiles (8 rows: 4 + 4, 16: 6 + 5 + 5). The first
// row tile streams the group's panels, the others find them in cache. Meanwhile the first
// row tiles, up to three, each prefetch a share of the next group into L2 (of each panel
// row of the group, the bytes [i · share, (i + 1) · share) for tile i), so that the memory
// streams through the whole group rather than while the first tile runs only (more than
// three shares do not pay); the last group prefetches the first panels of the block the
// thread likely takes next (a.nextCol). Unlike the AVX-512 tiles, these need the prefetches
// for streamed f32 weights too, from 2 rows on. Not for one row, whose 4 panel streams
// keep the memory busy alone. `LWB_CPU_ISA=avx2 bench_cpu --only austen --batches
// 2,4,8,16` measures it.
template <DType D>
void fewRows(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  const size_t stride = size_t(packedK(D, a.K)) * kPanel, panelBytes = stride * dtypeSize(D);
  const int colEnd = col0 + numCols;
  const int numShares = std::min(3, (numRows + kRowTile - 1) / kRowTile);
  const size_t share = (kPanel * dtypeSize(D) + size_t(numShares) - 1) / size_t(numShares);  // bytes per k, per tile
  tiles::forPanelGroups(col0, colEnd, maxPanels(numRows), [&](int c, int np) {
    const char* w = static_cast<const char*>(a.w) + size_t(c / kPanel) * panelBytes;
    const int nextCol = c + np * kPanel < colEnd ? c + np * kPanel : a.nextCol;
    const char* next = numRows > 1 && nextCol >= 0 && nextCol < a.N
                           ? static_cast<const char*>(a.w) + size_t(nextCol / kPanel) * panelBytes
                           : nullptr;
    const PanelMask mask = panelMask(lastWidth(colEnd, c, np));
    int tile = 0;
    tiles::forRowTiles(row0, numRows, kRowTile, [&](int r, int nr) {
      const int i = tile++;
      const Prefetch pf = next != nullptr && i < numShares ? Prefetch{next + size_t(i) * share * size_t(a.K), panelBytes, share} : Prefetch{};
      tileFn<D>(nr, np, pf)(a.x + size_t(r) * a.ldx, a.ldx, w, stride, a.y + size_t(r) * a.ldy + size_t(c), a.ldy, a.K, true, mask, pf);
    });
  });
}

// kn rows of k of a 16-bit panel block as f32 rows of 16 into out. BF16 k pairs: K blocks
// start at even k, and an odd kn's pad row (zero) stays inside the scratch block.
template <DType D>
void convertBlock(const void* w, int kn, float* out) {
  if constexpr (D == DType::BF16) {
    for (int k = 0; k < kn; k += 2)
      for (int v = 0; v < kV; ++v) {
        const __m256i p = loadPair(w, size_t(k) * kPanel + size_t(v) * 2 * kW);
        _mm256_store_ps(out + size_t(k) * kPanel + size_t(v) * kW, pairLow(p));
        _mm256_store_ps(out + size_t(k + 1) * kPanel + size_t(v) * kW, pairHigh(p, _mm256_load_si256(reinterpret_cast<const __m256i*>(kHighHalves))));
      }
  } else {
    for (int i = 0; i < kn * kPanel; i += kW) _mm256_store_ps(out + i, loadW<D>(w, size_t(i)));
  }
}

// Many rows: per panel and K block, the panel converted to f32 once (thread-local scratch,
// the same values), then every row tile runs over it, continuing the sums in y. The first
// row tile prefetches the next block, so that memory streams while this one computes.
template <DType D>
void manyRows(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  alignas(32) static thread_local float scratch[size_t(kKBlock) * kPanel];
  const size_t stride = size_t(packedK(D, a.K)) * kPanel;
  const int colEnd = col0 + numCols;
  const auto panelAt = [&](int col, int k) {
    return static_cast<const char*>(a.w) + (size_t(col / kPanel) * stride + size_t(k) * kPanel) * dtypeSize(D);
  };
  for (int c = col0; c < colEnd; c += kPanel) {
    const PanelMask mask = panelMask(lastWidth(colEnd, c, 1));
    for (int k0 = 0; k0 < a.K; k0 += kKBlock) {
      const int kn = std::min(kKBlock, a.K - k0);
      const void* w = panelAt(c, k0);
      const char* next = k0 + kKBlock < a.K ? panelAt(c, k0 + kKBlock) : c + kPanel < colEnd ? panelAt(c + kPanel, 0) : nullptr;
      if constexpr (D != DType::F32) {
        convertBlock<D>(w, kn, scratch);
        w = scratch;
      }
      tiles::forRowTiles(row0, numRows, kRowTile, [&](int r, int nr) {
        const Prefetch pf = r == row0 && next != nullptr ? Prefetch{next, 0, kPanel * dtypeSize(D)} : Prefetch{};
        tileFn<DType::F32>(nr, 1, pf)(a.x + size_t(r) * a.ldx + size_t(k0), a.ldx, w, stride, a.y + size_t(r) * a.ldy + size_t(c), a.ldy,
                                      kn, k0 == 0, mask, pf);
      });
    }
  }
}

template <DType D>
void gemmBlockT(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  if (numRows <= kFewRows) fewRows<D>(a, row0, numRows, col0, numCols);
  else manyRows<D>(a, row0, numRows, col0, numCols);
}

}  // namespace

void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  forWeightDType(a.wtype, [&]<DType D>() { gemmBlockT<D>(a, row0, numRows, col0, numCols); });
}

}  // namespace lwb::avx2

LWB_AVX2_END
#endif
