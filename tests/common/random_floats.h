#pragma once
// Uniform random floats in [lo, hi) from a fixed seed, for the CPU kernel tests.
#include <cstddef>
#include <random>
#include <vector>

namespace lwb::test {

inline std::vector<float> randomFloats(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& f : v) f = dist(rng);
  return v;
}

}  // namespace lwb::test
