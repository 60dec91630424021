// Quantized dot-product kernels alone, weights resident in L2: bytes of weights per
// second and per core for each ISA (Q8_0·Q8_0, Q4_K·Q8_K, and the 4×2 prefill tiles),
// against the bf16 path's need: a decode at the measured DRAM bandwidth needs the kernel
// to consume weights at least that fast per core. Never part of the test suite.
//   bench_quant_kernels
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "engine/exec/cpu/quant_kernels.h"
#include "engine/model/quant.h"

using namespace lwb;

namespace {

template <typename F>
double bestSeconds(F f) {
  double best = 1e30;
  for (int rep = 0; rep < 7; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

template <typename Block>
std::vector<Block> randomBlocks(GgmlType t, size_t n, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = dist(rng);
  std::vector<Block> out(n / size_t(ggmlBlockSize(t)));
  quantizeRow(t, x.data(), out.data(), int64_t(n));
  return out;
}

}  // namespace

int main() {
  constexpr int K = 4096, rows = 64;  // 64 rows of Q8_0 K=4096: 278 KiB, in L2
  std::mt19937 rng(1);
  const auto w8 = randomBlocks<BlockQ8_0>(GgmlType::Q8_0, size_t(K) * rows, rng);
  const auto w4 = randomBlocks<BlockQ4_K>(GgmlType::Q4_K, size_t(K) * rows, rng);
  const auto x8 = randomBlocks<BlockQ8_0>(GgmlType::Q8_0, size_t(K) * 4, rng);
  const auto xk = randomBlocks<BlockQ8_K>(GgmlType::Q8_K, size_t(K) * 4, rng);
  const int nb8 = K / 32, nbk = K / 256;
  for (Isa isa : supportedIsas()) {
    const QuantKernels& qk = quantKernels(isa);
    volatile float sink = 0;
    const int iters = 200;
    const double t8 = bestSeconds([&] {
      for (int it = 0; it < iters; ++it)
        for (int r = 0; r < rows; ++r) sink = sink + qk.dotQ8_0(&w8[size_t(r) * nb8], x8.data(), nb8);
    });
    const double t4 = bestSeconds([&] {
      for (int it = 0; it < iters; ++it)
        for (int r = 0; r < rows; ++r) sink = sink + qk.dotQ4_K(&w4[size_t(r) * nbk], xk.data(), nbk);
    });
    float y[4 * 2];
    const double tt8 = bestSeconds([&] {
      const BlockQ8_0* xs[4] = {x8.data(), x8.data() + nb8, x8.data() + 2 * nb8, x8.data() + 3 * nb8};
      for (int it = 0; it < iters / 4; ++it)
        for (int r = 0; r + 1 < rows; r += 2) {
          const BlockQ8_0* ws[2] = {&w8[size_t(r) * nb8], &w8[size_t(r + 1) * nb8]};
          qk.tileQ8_0(ws, xs, nb8, y, 2);
        }
      sink = sink + y[0];
    });
    const double tt4 = bestSeconds([&] {
      const BlockQ8_K* xs[4] = {xk.data(), xk.data() + nbk, xk.data() + 2 * nbk, xk.data() + 3 * nbk};
      for (int it = 0; it < iters / 4; ++it)
        for (int r = 0; r + 1 < rows; r += 2) {
          const BlockQ4_K* ws[2] = {&w4[size_t(r) * nbk], &w4[size_t(r + 1) * nbk]};
          qk.tileQ4_K(ws, xs, nbk, y, 2);
        }
      sink = sink + y[0];
    });
    const double bytes8 = double(iters) * rows * nb8 * sizeof(BlockQ8_0), bytes4 = double(iters) * rows * nbk * sizeof(BlockQ4_K);
    const double macs = double(iters) * rows * K;
    std::printf("%-8s dot Q8_0 %6.1f GB/s (%5.1f GMAC/s)  dot Q4_K %6.1f GB/s (%5.1f GMAC/s)  "
                "tile Q8_0 %5.1f GMAC/s  tile Q4_K %5.1f GMAC/s  (one core)\n",
                isaName(isa), bytes8 / t8 / 1e9, macs / t8 / 1e9, bytes4 / t4 / 1e9, macs / t4 / 1e9, macs / tt8 / 1e9,
                macs / tt4 / 1e9);
  }
  return 0;
}
