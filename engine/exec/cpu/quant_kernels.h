#pragma once
// Dot products directly on quantized blocks: a weight row in its ggml type against an
// activation row quantized per block to the matching 8-bit type (Q8_0 for Q8_0 weights,
// Q8_K for Q4_K). The integer part of every block is exact; the float part is one fixed
// sequence per ISA that depends only on the number of blocks: per block, the products
// of the block scales times its integer sums are accumulated in block order (the SIMD
// ISAs in 8 lanes, summed at the end in a fixed lane order; Q8_0 and Q4_0 in one, the
// block's whole integer). So an output never depends on the batch it is computed in. AVX2 and
// AVX-512 (VNNI when present) compute the same integers with the same lane layout and
// give identical bits.
#include <cstddef>

#include "engine/exec/cpu/cpu_isa.h"
#include "engine/model/quant_types.h"

namespace lwb {

// Tiles: y[r * ldy + c] = dot(w[c], x[r]) for R input rows and C weight rows, each output
// bit-identical to the type's dot (same lane integers, same float sequence); a tile only
// shares loads and unpacking, and its C × R independent accumulators hide the FMA latency
// that bounds a single dot.
template <typename WB, typename XB>
using QuantTileFn = void (*)(const WB* const* w, const XB* const* x, int nb, float* y, size_t ldy);

constexpr int kQuantTileRows = 4;
constexpr int kQuantTileCols = 2;
constexpr int kQuantTileMax = 16;  // the largest rows or cols of any prefill tile

// Decode: y[i] = dot(w + i · nb, x) for numRows consecutive weight rows from w against one
// activation row, each output the dot's exact bits; numRows is a multiple of the kernel's
// `rows` (its group: a call may prepare the activation's share once for all its groups).
template <typename WB, typename XB>
using QuantRowsFn = void (*)(const WB* w, const XB* x, int nb, float* y, int numRows);
template <typename WB, typename XB>
struct QuantRows {
  QuantRowsFn<WB, XB> fn = nullptr;
  int rows = 0;
};

// A prefill tile's input rows × weight rows.
struct QuantTileDims {
  int rows = kQuantTileRows;
  int cols = kQuantTileCols;
};

struct QuantKernels {
  Isa isa = Isa::Scalar;
  bool vnni = false;
  // Σ_k w[k] · x[k] over nb blocks (32 elements; 256 for the K-quants). Q8_0, Q4_0,
  // Q4_1, Q5_0 and Q5_1 weights meet activations quantized to Q8_0 (Q4_1/Q5_1's offset m
  // times the block's integer Σx); Q4_K, Q5_K and Q6_K meet Q8_K.
  float (*dotQ8_0)(const BlockQ8_0* w, const BlockQ8_0* x, int nb) = nullptr;
  float (*dotQ4_0)(const BlockQ4_0* w, const BlockQ8_0* x, int nb) = nullptr;
  float (*dotQ4_1)(const BlockQ4_1* w, const BlockQ8_0* x, int nb) = nullptr;
  float (*dotQ5_0)(const BlockQ5_0* w, const BlockQ8_0* x, int nb) = nullptr;
  float (*dotQ5_1)(const BlockQ5_1* w, const BlockQ8_0* x, int nb) = nullptr;
  float (*dotQ4_K)(const BlockQ4_K* w, const BlockQ8_K* x, int nb) = nullptr;
  float (*dotQ5_K)(const BlockQ5_K* w, const BlockQ8_K* x, int nb) = nullptr;
  float (*dotQ6_K)(const BlockQ6_K* w, const BlockQ8_K* x, int nb) = nullptr;
  // Prefill: kQuantTileRows × kQuantTileCols, except where the dims below say otherwise
  // (Q8_0's and Q4_0's tiles hold a column per 32-bit lane, AVX-512's Q5_0 tile two
  // columns per 512-bit register).
  QuantTileDims tileDimsQ8_0, tileDimsQ4_0, tileDimsQ5_0;
  QuantTileFn<BlockQ8_0, BlockQ8_0> tileQ8_0 = nullptr;
  QuantTileFn<BlockQ4_0, BlockQ8_0> tileQ4_0 = nullptr;
  QuantTileFn<BlockQ4_1, BlockQ8_0> tileQ4_1 = nullptr;
  QuantTileFn<BlockQ5_0, BlockQ8_0> tileQ5_0 = nullptr;
  QuantTileFn<BlockQ5_1, BlockQ8_0> tileQ5_1 = nullptr;
  QuantTileFn<BlockQ4_K, BlockQ8_K> tileQ4_K = nullptr;
  QuantTileFn<BlockQ5_K, BlockQ8_K> tileQ5_K = nullptr;
  QuantTileFn<BlockQ6_K, BlockQ8_K> tileQ6_K = nullptr;
  // Decode of the legacy types, where one dot is bound by its single FMA chain (Q4_0's
  // also by its block's horizontal sum): rows of weights side by side, one chain each.
  // fn nullptr: one dot per row.
  QuantRows<BlockQ4_0, BlockQ8_0> rowsQ4_0;
  QuantRows<BlockQ4_1, BlockQ8_0> rowsQ4_1;
  QuantRows<BlockQ5_0, BlockQ8_0> rowsQ5_0;
  QuantRows<BlockQ5_1, BlockQ8_0> rowsQ5_1;
  // Activation rows → Q8_0 / Q8_K blocks (n a multiple of the block): the same bytes as
  // quantizeRow, vectorized.
  void (*quantizeQ8_0)(const float* x, BlockQ8_0* out, int n) = nullptr;
  void (*quantizeQ8_K)(const float* x, BlockQ8_K* out, int n) = nullptr;
};

// The kernels of `isa` (throws lwb::Error when the CPU lacks it).
const QuantKernels& quantKernels(Isa isa);

const QuantKernels& scalarQuantKernels();
const QuantKernels& avx2QuantKernels();
const QuantKernels& avx512QuantKernels();  // nullptr members mean: fall back to AVX2
bool cpuHasAvx512Vnni();

}  // namespace lwb
