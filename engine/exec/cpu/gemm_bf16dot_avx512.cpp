// The "AVX-512 BF16" ISA level (Isa::Avx512Bf16, cpu_isa.h): GEMM tiles for bf16 weights
// that meet the activations rounded to bf16 in vdpbf16ps. The weights' panels already
// hold k pairs (a 32-bit lane = one column's k and k + 1, kernels.h), which is the
// instruction's operand; gemm() converts each activation row once into the same pairs
// (GemmArgs::xPairs). One vdpbf16ps is 32 multiply-adds, an f32 FMA 16, and the weights
// need no conversion, so a tile over L2-resident bf16 weights can do twice AVX-512's
// multiply-adds per cycle (`bench_quant_kernels --gemm` measures it). Every output is one
// sequence of vdpbf16ps over the k pairs in order, whatever the tile, the batch or the
// thread, so the level is batch-invariant; its results are not AVX-512's (the activations
// are rounded).
// Other weight dtypes, and every other kernel, are AVX-512's. Standard headers come before
// the target region, as in the other kernel files.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "engine/exec/cpu/kernels.h"

#if defined(__x86_64__)
#include "engine/exec/cpu/avx512_common.h"

LWB_AVX512_BF16_BEGIN
#include <immintrin.h>

#include "engine/exec/cpu/tile_split.h"

namespace lwb::avx512bf16 {
namespace {

constexpr int kW = 16;
constexpr int kRowTile = 6;       // 6 rows × 4 panels = 24 accumulators, 4 weight vectors, a broadcast
constexpr int kPanelTile = 4;
constexpr int kDecodePanels = 8;  // one row: 8 chains (vdpbf16ps' latency), 8 panel streams
// gemmBf16 prefetches the next panel group over this many rows (L3-resident / streamed weights)
constexpr int kPrefetchRows = 4, kStreamRows = 12;
static_assert(kPrefetchRows >= 1 && kStreamRows >= kPrefetchRows, "one row never prefetches: tileFn has no such tile");
// 7 or 8 rows run as one tall tile of 3 panels (24 accumulators, 3 weight vectors, a
// broadcast), so each weight is loaded once, where two 4 × 4 tiles loaded it twice and the
// first of them waited on L3 at twice the rate per multiply-add; 16 and 32 rows gain
// nothing from 8-row tiles, so only these take them. `bench_cpu --only austen --runs "11m
// bf16" --batches 8,16,32` measures it.
constexpr int kTallFrom = 7, kTallRows = 8, kTallPanels = 3;
inline bool tallTile(int numRows) { return numRows >= kTallFrom && numRows <= kTallRows; }

// R rows × C panels over kp k pairs: x pairs ldx lanes apart, panels `stride` lanes apart,
// y from zero; the last panel stores lastMask's columns. When pf is set, also prefetches
// into L2 the C regions pfStride bytes apart from pf: line pfPhase + j · pfEvery of each at
// k pair j · pfEvery (a panel's k pair is one 64-byte line), so that pfEvery tiles with
// phases 0..pfEvery-1 share them (as gemm_avx512.cpp's tiles do).
struct DotArgs {
  const uint32_t* x;
  size_t ldx;
  const uint32_t* w;
  size_t stride;
  float* y;
  size_t ldy;
  int kp;
  __mmask16 lastMask;
  const char* pf = nullptr;
  size_t pfStride = 0;
  int pfEvery = 1, pfPhase = 0;
};

template <int R, int C, bool Pf>
void tile(const DotArgs& t) {
  __m512 acc[R][C];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  int pfCount = 1;
  for (int k = 0; k < t.kp; ++k) {
    if (Pf && --pfCount == 0) {
      pfCount = t.pfEvery;
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) _mm_prefetch(t.pf + size_t(c) * t.pfStride + size_t(k + t.pfPhase) * 64, _MM_HINT_T1);
    }
    __m512i w[C];
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) w[c] = _mm512_load_si512(t.w + size_t(c) * t.stride + size_t(k) * kW);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512i xv = _mm512_set1_epi32(int(t.x[size_t(r) * t.ldx + size_t(k)]));
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], (__m512bh)xv, (__m512bh)w[c]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c)
      _mm512_mask_storeu_ps(t.y + size_t(r) * t.ldy + size_t(c) * kW, c == C - 1 ? t.lastMask : __mmask16(0xffff), acc[r][c]);
}

using TileFn = void (*)(const DotArgs&);

template <int R, int... Cs>
constexpr std::array<TileFn, 2 * sizeof...(Cs)> tilesOfRow(std::integer_sequence<int, Cs...>) {
  return {&tile<R, Cs + 1, false>..., &tile<R, Cs + 1, true>...};
}

template <int... Cs>
constexpr std::array<TileFn, sizeof...(Cs)> tilesOfOneRow(std::integer_sequence<int, Cs...>) {
  return {&tile<1, Cs + 1, false>...};
}

// The tile of R rows (1..kRowTile) × C panels (1..kPanelTile; 1..kDecodePanels for one row,
// which never prefetches: gemmBf16), or a tall one (R kTallFrom..kTallRows, C 1..kTallPanels).
TileFn tileFn(int R, int C, bool pf) {
  static_assert(kTallFrom == kRowTile + 1 && kTallRows == kTallFrom + 1, "tall tiles: the two row counts after kRowTile");
  static constexpr std::array<std::array<TileFn, 2 * kTallPanels>, 2> tall{
      tilesOfRow<kTallFrom>(std::make_integer_sequence<int, kTallPanels>{}),
      tilesOfRow<kTallRows>(std::make_integer_sequence<int, kTallPanels>{})};
  if (R >= kTallFrom) return tall[size_t(R - kTallFrom)][size_t(C - 1) + (pf ? size_t(kTallPanels) : 0)];
  static constexpr auto one = tilesOfOneRow(std::make_integer_sequence<int, kDecodePanels>{});
  static constexpr std::array<std::array<TileFn, 2 * kPanelTile>, kRowTile - 1> many{
      tilesOfRow<2>(std::make_integer_sequence<int, kPanelTile>{}), tilesOfRow<3>(std::make_integer_sequence<int, kPanelTile>{}),
      tilesOfRow<4>(std::make_integer_sequence<int, kPanelTile>{}), tilesOfRow<5>(std::make_integer_sequence<int, kPanelTile>{}),
      tilesOfRow<6>(std::make_integer_sequence<int, kPanelTile>{})};
  if (R == 1) return one[size_t(C - 1)];
  return many[size_t(R - 2)][size_t(C - 1) + (pf ? size_t(kPanelTile) : 0)];
}

// Per panel group, every row tile over all k pairs; over kPrefetchRows rows (kStreamRows
// when the weights stream from memory, a.weightsStream) the first row tiles, up to three,
// prefetch the next group (or the first panels of the block the thread likely takes next,
// a.nextCol) into L2, tile i every i-th line. With fewer rows over streamed weights the
// step is bound by the memory bandwidth, which the hardware prefetcher alone reaches on the
// 4 panel streams, and the software prefetches only add requests; over L3-resident weights
// they pay from 5 rows on. `bench_cpu --only austen --runs "11m bf16"` (L3-resident) and
// `bench_cpu --quick --only large --runs bf16` (streamed) measure it.
void gemmBf16(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  const int kp = (a.K + 1) / 2;
  const size_t stride = size_t(kp) * kW;  // lanes per panel
  const uint32_t* w = static_cast<const uint32_t*>(a.w);
  const int colEnd = col0 + numCols;
  const bool tall = tallTile(numRows);
  const int rowTile = tall ? kTallRows : kRowTile;
  const int maxPanels = numRows == 1 ? kDecodePanels : tall ? kTallPanels : kPanelTile;
  const int numShares = std::min(3, (numRows + rowTile - 1) / rowTile);
  const bool prefetch = numRows > (a.weightsStream ? kStreamRows : kPrefetchRows);
  tiles::forPanelGroups(col0, colEnd, maxPanels, [&](int c, int np) {
    const uint32_t* wg = w + size_t(c / kW) * stride;
    const int nextCol = c + np * kW < colEnd ? c + np * kW : a.nextCol;
    const uint32_t* next = nextCol >= 0 && nextCol < a.N ? w + size_t(nextCol / kW) * stride : nullptr;
    const __mmask16 lastMask = avx512::maskOf(colEnd, c, np);
    int tileIndex = 0;
    tiles::forRowTiles(row0, numRows, rowTile, [&](int r, int nr) {
      DotArgs t{a.xPairs + size_t(r) * a.ldxPairs, a.ldxPairs, wg, stride, a.y + size_t(r) * a.ldy + size_t(c), a.ldy, kp,
                lastMask};
      const int i = tileIndex++;
      if (prefetch && next != nullptr && i < numShares) {
        t.pf = reinterpret_cast<const char*>(next);
        t.pfStride = stride * sizeof(uint32_t);
        t.pfEvery = numShares, t.pfPhase = i;
      }
      tileFn(nr, np, t.pf != nullptr)(t);
    });
  });
}

void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  if (a.wtype == DType::BF16 && a.xPairs != nullptr) return gemmBf16(a, row0, numRows, col0, numCols);
  avx512::gemmBlock(a, row0, numRows, col0, numCols);
}

int panelGroup(DType wtype, int numRows) {
  if (wtype != DType::BF16) return avx512::panelGroup(wtype, numRows);
  return numRows <= 1 || numRows > kGemmRowGroup ? 1 : tallTile(numRows) ? kTallPanels : kPanelTile;
}

// floatToBf16 (dtype.h) on 16 lanes: round to nearest even, a NaN kept quiet.
inline __m512i toBf16(__m512 v) {
  const __m512i bits = _mm512_castps_si512(v);
  const __m512i rounded = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7fff)), _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1))),
      16);
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  const __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(0x40));
  return _mm512_mask_mov_epi32(rounded, nan, quiet);
}

void bf16Pairs(const float* x, int K, uint32_t* out) {
  const int kp = (K + 1) / 2;
  int i = 0;
  for (; 2 * i + 32 <= K; i += kW) {  // 32 values → 16 pairs
    const __m512i lo = toBf16(_mm512_loadu_ps(x + 2 * i)), hi = toBf16(_mm512_loadu_ps(x + 2 * i + kW));
    // lanes of lo: x[2i], x[2i+1], ... as 32-bit bf16 values; pack (even | odd << 16)
    const __m512i idxEven = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i idxOdd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512i even = _mm512_permutex2var_epi32(lo, idxEven, hi), odd = _mm512_permutex2var_epi32(lo, idxOdd, hi);
    _mm512_storeu_si512(out + i, _mm512_or_si512(even, _mm512_slli_epi32(odd, 16)));
  }
  for (; i < kp; ++i) {
    const uint32_t lo = floatToBf16(x[2 * i]), hi = 2 * i + 1 < K ? floatToBf16(x[2 * i + 1]) : 0u;
    out[i] = lo | hi << 16;
  }
}

}  // namespace
}  // namespace lwb::avx512bf16

namespace lwb {
const CpuKernels& avx512Bf16Kernels() {
  static const CpuKernels k = [] {
    CpuKernels t = avx512Kernels();
    t.isa = Isa::Avx512Bf16;
    t.gemmBlock = &avx512bf16::gemmBlock;
    t.panelGroup = &avx512bf16::panelGroup;
    t.bf16Pairs = &avx512bf16::bf16Pairs;
    return t;
  }();
  return k;
}
}  // namespace lwb
LWB_AVX512_BF16_END

#else
namespace lwb {
const CpuKernels& avx512Bf16Kernels() { return avx512Kernels(); }
}  // namespace lwb
#endif
