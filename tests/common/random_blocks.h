#pragma once
// Random ggml blocks for the quantized-kernel tests: every bit pattern of the quants,
// with finite half scales (d, and m or dmin where the block has one) in ±scale.
#include <cstdint>
#include <random>
#include <vector>

#include "engine/common/dtype.h"

namespace lwb::test {

template <typename Block>
std::vector<Block> randomBlocks(size_t nb, std::mt19937& rng, float scale) {
  std::vector<Block> out(nb);
  auto* bytes = reinterpret_cast<uint8_t*>(out.data());
  for (size_t i = 0; i < out.size() * sizeof(Block); ++i) bytes[i] = uint8_t(rng());
  std::uniform_real_distribution<float> d(-scale, scale);
  for (Block& b : out) {
    b.d = floatToF16(d(rng));
    if constexpr (requires { b.m; }) b.m = floatToF16(d(rng));
    if constexpr (requires { b.dmin; }) b.dmin = floatToF16(d(rng));
  }
  return out;
}

}  // namespace lwb::test
