#pragma once
// Dot products directly on quantized blocks: a weight row in its ggml type against an
// activation row quantized per block to the matching 8-bit type (Q8_0 for Q8_0 weights,
// Q8_K for Q4_K). The integer part of every block is exact; the float part is one fixed
// sequence per ISA that depends only on the number of blocks: per block, the products
// of the block scales times its integer sums are accumulated in block order (the SIMD
// ISAs in 8 lanes, summed at the end in a fixed lane order). So an output never depends
// on the batch it is computed in. AVX2 and AVX-512 (VNNI when present) compute the same
// integers with the same lane layout and give identical bits.
#include <cstddef>

#include "engine/exec/cpu/cpu_isa.h"
#include "engine/model/quant_types.h"

namespace lwb {

struct QuantKernels {
  Isa isa = Isa::Scalar;
  bool vnni = false;
  // Σ_k w[k] · x[k] over nb blocks of 32.
  float (*dotQ8_0)(const BlockQ8_0* w, const BlockQ8_0* x, int nb) = nullptr;
  // Σ_k w[k] · x[k] over nb super-blocks of 256.
  float (*dotQ4_K)(const BlockQ4_K* w, const BlockQ8_K* x, int nb) = nullptr;
  // Prefill tiles: y[r * ldy + c] = dot(w[c], x[r]) for kQuantTileRows input rows and
  // kQuantTileCols weight rows, each output bit-identical to the dot above (same lane
  // integers, same float sequence); the tile only shares loads and unpacking.
  void (*tileQ8_0)(const BlockQ8_0* const* w, const BlockQ8_0* const* x, int nb, float* y, size_t ldy) = nullptr;
  void (*tileQ4_K)(const BlockQ4_K* const* w, const BlockQ8_K* const* x, int nb, float* y, size_t ldy) = nullptr;
  // Activation rows → Q8_0 / Q8_K blocks (n a multiple of the block): the same bytes as
  // quantizeRow, vectorized.
  void (*quantizeQ8_0)(const float* x, BlockQ8_0* out, int n) = nullptr;
  void (*quantizeQ8_K)(const float* x, BlockQ8_K* out, int n) = nullptr;
  // The other types GGUF files hold (Q4_K_M / Q5_K_M mixes and their fallbacks), each
  // against the same activation type as above: the legacy ones against Q8_0 (Q4_1/Q5_1's
  // offset m times the block's integer Σx), the K-quants against Q8_K. Their tiles
  // are single dots, so they are the same bits by construction.
  float (*dotQ4_0)(const BlockQ4_0* w, const BlockQ8_0* x, int nb) = nullptr;
  float (*dotQ4_1)(const BlockQ4_1* w, const BlockQ8_0* x, int nb) = nullptr;
  float (*dotQ5_0)(const BlockQ5_0* w, const BlockQ8_0* x, int nb) = nullptr;
  float (*dotQ5_1)(const BlockQ5_1* w, const BlockQ8_0* x, int nb) = nullptr;
  float (*dotQ5_K)(const BlockQ5_K* w, const BlockQ8_K* x, int nb) = nullptr;
  float (*dotQ6_K)(const BlockQ6_K* w, const BlockQ8_K* x, int nb) = nullptr;
};

constexpr int kQuantTileRows = 4;
constexpr int kQuantTileCols = 2;

// The kernels of `isa` (throws lwb::Error when the CPU lacks it).
const QuantKernels& quantKernels(Isa isa);

const QuantKernels& scalarQuantKernels();
const QuantKernels& avx2QuantKernels();
const QuantKernels& avx512QuantKernels();  // nullptr members mean: fall back to AVX2
bool cpuHasAvx512Vnni();

}  // namespace lwb
