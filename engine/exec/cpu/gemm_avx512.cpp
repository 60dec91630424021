// AVX-512 GEMM tiles (layout and order in kernels.h): register tiles for few rows
// (decode batches, weights converted inline), tall tiles for 7..16 rows of 16-bit weights,
// and K-blocked tiles over converted panels for many rows (prefill). Standard headers come
// before the target region so that no inline library code is emitted with AVX-512
// instructions for use elsewhere.
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "engine/exec/cpu/kernels.h"

#if defined(__x86_64__)
#include "engine/exec/cpu/avx512_common.h"

LWB_AVX512_BEGIN
#include "engine/exec/cpu/tile_split.h"

namespace lwb::avx512 {
namespace {

constexpr int kRowTile = 6;       // register tile: 6 rows × 4 panels = 24 accumulators
constexpr int kPanelTile = 4;
constexpr int kDecodePanels = 8;  // one row: 8 independent FMA chains, 8 panel streams
// K block of the multi-row path: its converted panels (4 × 128 × 16 floats, 32 KiB) stay in
// a 48 KiB L1 while every row tile reads them (`bench_quant_kernels --gemm` measures it).
constexpr int kKBlock = 128;
static_assert(kKBlock % 2 == 0, "K blocks start at even k: bf16 panels hold k pairs");
// Up to here, converting panels to f32 scratch first does not pay on Intel's cores, where
// the conversions of 16-bit weights compete with the FMAs for the same two ports; on AMD's
// cores fewRows is the faster path for every block up to gemm.cpp's row groups of 256, so
// manyRows does not run there (gemmBlockT). `bench_cpu --only austen --batches 32,64,128`
// and `bench_cpu --only large` measure it.
constexpr int kFewRows = 16;
constexpr int kF32StreamRows = 8;  // fewRows: streamed f32 weights' steps up to this many rows are memory-bound

// One register tile of R rows × C panels over kn steps of k. x points at (row 0, first k),
// w at (panel 0, first k; even for BF16) with panels `stride` elements apart, y at (row 0, panel 0's first
// column). The accumulators start at zero (`first`) or continue from y; the last panel
// stores only `lastMask`'s columns. When pf is set, the tile also prefetches into L2 C
// regions of weights pfStride bytes apart from pf: line pfPhase + j · pfEvery of each at
// the k step where line j · pfEvery of its own panels would be (16 weights per k: a line
// per k of f32, per 2 k of 16-bit weights), so that pfEvery tiles with phases 0..pfEvery-1
// share the lines (pfEvery 1: every line, as one tile).
struct TileArgs {
  const float* x;
  size_t ldx;
  const void* w;
  size_t stride;
  float* y;
  size_t ldy;
  int kn;
  bool first;
  __mmask16 lastMask;
  const char* pf = nullptr;
  size_t pfStride = 0;
  int pfMask = 0;
  int pfEvery = 1;  // tiles sharing the prefetch, this one from line pfPhase
  int pfPhase = 0;
};

template <DType D>
void setPrefetch(TileArgs& t, const void* pf, size_t panelStride) {
  t.pf = static_cast<const char*>(pf);
  t.pfStride = panelStride * dtypeSize(D);
  t.pfMask = D == DType::F32 ? 0 : 1;
}

// acc[r][c] += x[r * ldx + k] · wv[c], rows outer (one broadcast each). A macro, not a
// function taking acc by reference: that made GCC keep the accumulators in memory and
// store them every k step.
#define LWB_FMA_ROWS(k)                                                            \
  for (int r = 0; r < R; ++r) {                                                    \
    const __m512 xv = _mm512_set1_ps(t.x[size_t(r) * t.ldx + size_t(k)]);         \
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_fmadd_ps(xv, wv[c], acc[r][c]); \
  }

// Pf: whether the tile prefetches (a separate instantiation, so the tiles that do not keep
// a loop without the test).
//
// F32/F16 panels: one panel row per k. BF16 panels: a k pair per step, every accumulator
// gets its k FMA, then its k + 1 FMA, the same chain as one k per step (an odd K's last k
// alone; tiles start at even k). Each half loads the pair itself, the second load from L1:
// wHi is the same address, laundered so that GCC does not load it once into a register
// held across the k FMAs (and mask that register), one a 6 × 4 tile (24 accumulators) does
// not have. A line of each panel per step is prefetched (64 bytes per pair, as per two k
// of 16-bit weights before).
template <DType D, int R, int C, bool Pf>
void tile(const TileArgs& t) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c)
      acc[r][c] = t.first ? _mm512_setzero_ps()
                          : _mm512_maskz_loadu_ps(c == C - 1 ? t.lastMask : 0xffff, t.y + size_t(r) * t.ldy + size_t(c) * kW);
  if constexpr (D == DType::BF16) {
    const void* wHi = t.w;
    asm("" : "+r"(wHi));
    int k = 0, pfCount = 1;
    for (; k + 1 < t.kn; k += 2) {
      if (Pf && --pfCount == 0) {
        pfCount = t.pfEvery;
        for (int c = 0; c < C; ++c) _mm_prefetch(t.pf + size_t(c) * t.pfStride + size_t(k) * 32 + size_t(t.pfPhase) * 64, _MM_HINT_T1);
      }
      __m512 wv[C];
      for (int c = 0; c < C; ++c) wv[c] = loadPairLow(t.w, size_t(c) * t.stride + size_t(k) * kW);
      LWB_FMA_ROWS(k)
      for (int c = 0; c < C; ++c) wv[c] = loadPairHigh(wHi, size_t(c) * t.stride + size_t(k) * kW);
      LWB_FMA_ROWS(k + 1)
    }
    if (k < t.kn) {
      __m512 wv[C];
      for (int c = 0; c < C; ++c) wv[c] = loadPairLow(t.w, size_t(c) * t.stride + size_t(k) * kW);
      LWB_FMA_ROWS(k)
    }
  } else {
    int pfCount = 1;
    for (int k = 0; k < t.kn; ++k) {
      if (Pf && (k & t.pfMask) == 0 && --pfCount == 0) {
        pfCount = t.pfEvery;
        for (int c = 0; c < C; ++c)
          _mm_prefetch(t.pf + size_t(c) * t.pfStride + ((size_t(k) * 64) >> t.pfMask) + size_t(t.pfPhase) * 64, _MM_HINT_T1);
      }
      __m512 wv[C];
      for (int c = 0; c < C; ++c) wv[c] = loadW<D>(t.w, size_t(c) * t.stride + size_t(k) * kW);
      LWB_FMA_ROWS(k)
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c)
      _mm512_mask_storeu_ps(t.y + size_t(r) * t.ldy + size_t(c) * kW, c == C - 1 ? t.lastMask : 0xffff, acc[r][c]);
}
#undef LWB_FMA_ROWS

using TileFn = void (*)(const TileArgs&);

template <DType D, int R, int... Cs>
constexpr std::array<TileFn, 2 * sizeof...(Cs)> tilesOfRow(std::integer_sequence<int, Cs...>) {
  return {&tile<D, R, Cs + 1, false>..., &tile<D, R, Cs + 1, true>...};
}

// The tile of R rows × C panels for R in 1..kRowTile, C in 1..kPanelTile; row 1 up to
// kDecodePanels; the prefetching one when pf.
template <DType D>
TileFn tileFn(int R, int C, bool pf) {
  static constexpr auto one = tilesOfRow<D, 1>(std::make_integer_sequence<int, kDecodePanels>{});
  static constexpr std::array<std::array<TileFn, 2 * kPanelTile>, kRowTile - 1> many{
      tilesOfRow<D, 2>(std::make_integer_sequence<int, kPanelTile>{}), tilesOfRow<D, 3>(std::make_integer_sequence<int, kPanelTile>{}),
      tilesOfRow<D, 4>(std::make_integer_sequence<int, kPanelTile>{}), tilesOfRow<D, 5>(std::make_integer_sequence<int, kPanelTile>{}),
      tilesOfRow<D, 6>(std::make_integer_sequence<int, kPanelTile>{})};
  const size_t c = size_t(C - 1) + (pf ? size_t(R == 1 ? kDecodePanels : kPanelTile) : 0);
  return R == 1 ? one[c] : many[size_t(R - 2)][c];
}

// Tall tiles for 7..16 rows: up to 8 rows × 3 panels (24 accumulators). Each panel's
// 16-bit weights are converted once per tile and k, so a tile of more rows spends fewer of
// the FMA ports' slots on conversions than 6 × 4 does (3 per 24 FMAs instead of 4, and no
// thin remainder tile: 8 rows are one tile, not 6 + 2).
constexpr int kTallRows = 8, kTallPanels = 3;

template <DType D>
TileFn tallTileFn(int R, int C, bool pf) {
  static constexpr std::array<std::array<TileFn, 2 * kTallPanels>, 3> t{  // R = 6, 7, 8 (see useTallTiles)
      tilesOfRow<D, 6>(std::make_integer_sequence<int, kTallPanels>{}), tilesOfRow<D, 7>(std::make_integer_sequence<int, kTallPanels>{}),
      tilesOfRow<D, 8>(std::make_integer_sequence<int, kTallPanels>{})};
  return t[size_t(R - 6)][size_t(C - 1) + (pf ? kTallPanels : 0)];
}

using tiles::forPanelGroups;
using tiles::forRowTiles;

template <DType D>
const void* panelAt(const GemmArgs& a, int col, int k) {
  return static_cast<const char*>(a.w) + (size_t(col / kW) * size_t(packedK(D, a.K)) + size_t(k)) * kW * dtypeSize(D);
}

// Where the tall tiles measured faster (a bf16 GEMM of K 1024, N 4096 on one core): rows
// that split into tiles of 7 or 8 (7, 8, 13..16). 9..12 rows are two 6 × 4 tiles, which beat
// 3-panel tiles of 5 or 6 rows. f32 weights convert nothing, but a decode step streams them
// from L3 or memory: 8 rows as one tile read each panel once instead of twice (6 × 4 split
// them 4 + 4). `bench_quant_kernels --gemm` and `bench_cpu --only austen --batches 8,16`
// measure it.
inline bool useTallTiles(int numRows) {
  return numRows > kRowTile && numRows <= 2 * kTallRows && (numRows % kTallRows == 0 || numRows % kTallRows >= 5);
}

// Few rows (decode batches): per panel group, every row tile over all of K with the
// weights converted inline. The first row tile reads the group's panels, the others find
// them in L1/L2. Meanwhile the first row tiles, up to three, prefetch the next group into
// L2, tile i every i-th line of each panel from line i on, spread over their k steps (as
// the AVX2 tiles do); the last group prefetches the first panels of the block the thread
// likely takes next (a.nextCol); prefetching the next group rather than a tile's own panels
// a little ahead keeps the memory busy while the later tiles compute. Not for one row,
// whose 8 panel streams keep the memory busy alone, nor for f32 weights that stream from
// memory (a.weightsStream) up to kF32StreamRows rows: their step is bound by the
// bandwidth, which the hardware prefetcher alone reaches, and the software prefetches only
// add requests (bf16 weights, converted in the tiles, still gain from them). `bench_cpu
// --only austen --batches 2,4,8,16` and `bench_cpu --quick --only large` measure it.
template <DType D>
void fewRows(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  const bool tall = useTallTiles(numRows);
  const int maxPanels = numRows == 1 ? kDecodePanels : tall ? kTallPanels : kPanelTile;
  const int maxRows = tall ? kTallRows : kRowTile;
  const size_t stride = size_t(packedK(D, a.K)) * kW;
  const int colEnd = col0 + numCols;
  const int numShares = std::min(3, (numRows + maxRows - 1) / maxRows);
  const bool prefetch = numRows > (D == DType::F32 && a.weightsStream ? kF32StreamRows : 1);
  forPanelGroups(col0, colEnd, maxPanels, [&](int c, int np) {
    const void* w = panelAt<D>(a, c, 0);
    const int nextCol = c + np * kW < colEnd ? c + np * kW : a.nextCol;
    const void* next = nextCol >= 0 && nextCol < a.N ? panelAt<D>(a, nextCol, 0) : nullptr;
    int tileIndex = 0;
    forRowTiles(row0, numRows, maxRows, [&](int r, int nr) {
      TileArgs t{a.x + size_t(r) * a.ldx, a.ldx, w, stride, a.y + size_t(r) * a.ldy + size_t(c), a.ldy, a.K, true,
                 maskOf(colEnd, c, np)};
      const int i = tileIndex++;
      if (prefetch && next != nullptr && i < numShares) {
        setPrefetch<D>(t, next, stride);
        t.pfEvery = numShares, t.pfPhase = i;
      }
      (tall ? tallTileFn<D>(nr, np, t.pf != nullptr) : tileFn<D>(nr, np, t.pf != nullptr))(t);
    });
  });
}

// kn rows of k of a 16-bit panel from element i of w, as f32 rows of 16 into out. BF16 k
// pairs: K blocks start at even k, and an odd kn's pad row (zero) stays inside the block.
template <DType D>
void convertBlock(const void* w, size_t i, int kn, float* out) {
  if constexpr (D == DType::BF16) {
    for (int k = 0; k < kn; k += 2) {
      _mm512_store_ps(out + size_t(k) * kW, loadPairLow(w, i + size_t(k) * kW));
      _mm512_store_ps(out + size_t(k + 1) * kW, loadPairHigh(w, i + size_t(k) * kW));
    }
  } else {
    for (int k = 0; k < kn; ++k) _mm512_store_ps(out + size_t(k) * kW, loadW<D>(w, i + size_t(k) * kW));
  }
}

// Many rows: per panel group and K block, the panels converted to f32 once (thread-local
// scratch, the same values), then every row tile runs over them, continuing the sums in y.
// The first row tile prefetches the next block's panels, so that the memory streams while
// this block computes.
template <DType D>
void manyRows(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  alignas(64) static thread_local float scratch[size_t(kPanelTile) * kKBlock * kW];
  const size_t stride = size_t(packedK(D, a.K)) * kW;
  const int colEnd = col0 + numCols;
  forPanelGroups(col0, colEnd, kPanelTile, [&](int c, int np) {
    const __mmask16 mask = maskOf(colEnd, c, np);
    for (int k0 = 0; k0 < a.K; k0 += kKBlock) {
      const int kn = std::min(kKBlock, a.K - k0);
      const void* w = panelAt<D>(a, c, k0);
      const char* next = k0 + kKBlock < a.K ? static_cast<const char*>(panelAt<D>(a, c, k0 + kKBlock))
                         : c + np * kW < colEnd ? static_cast<const char*>(panelAt<D>(a, c + np * kW, 0))
                                                : nullptr;
      size_t wStride = stride;
      if constexpr (D != DType::F32) {
        for (int p = 0; p < np; ++p) convertBlock<D>(w, size_t(p) * stride, kn, &scratch[size_t(p) * kKBlock * kW]);
        w = scratch;
        wStride = size_t(kKBlock) * kW;
      }
      forRowTiles(0, numRows, kRowTile, [&](int r, int nr) {
        TileArgs t{a.x + size_t(row0 + r) * a.ldx + size_t(k0), a.ldx, w, wStride, a.y + size_t(row0 + r) * a.ldy + size_t(c),
                   a.ldy, kn, k0 == 0, mask};
        if (r == 0 && next != nullptr) setPrefetch<D>(t, next, stride);
        tileFn<DType::F32>(nr, np, t.pf != nullptr)(t);
      });
    }
  });
}

template <DType D>
void gemmBlockT(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  static const int fewRowsUpTo = isAmdCpu() ? kGemmRowGroup : kFewRows;
  if (numRows <= fewRowsUpTo) fewRows<D>(a, row0, numRows, col0, numCols);
  else manyRows<D>(a, row0, numRows, col0, numCols);
}

}  // namespace

// The tiles fewRows and manyRows run, for decode-sized batches (up to one row group of
// gemm.cpp, 256 rows: there a 2-panel block, which the 384-column o_proj/down_proj of a
// small model got, runs half-width tiles). Batch 1 keeps gemm.cpp's default grid (group
// 1): its 8-panel tile streams from memory and does best with many small tasks (`bench_cpu
// --batches 1` measures it); prefill keeps it too.
int panelGroup(DType, int numRows) {  // the same tiles for every dtype (see useTallTiles)
  if (numRows <= 1 || numRows > kGemmRowGroup) return 1;
  return useTallTiles(numRows) ? kTallPanels : kPanelTile;
}

void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  forWeightDType(a.wtype, [&]<DType D>() { gemmBlockT<D>(a, row0, numRows, col0, numCols); });
}

}  // namespace lwb::avx512
LWB_AVX512_END
#endif
