// Quantized dot-product kernels alone, weights resident in L2, one core: for each ISA
// and each GGUF weight type, the decode dot's weight bytes per second (a decode at the
// measured DRAM bandwidth needs the kernel to consume weights at least that fast per
// core) and the prefill tile's multiply-adds per second. Also the unquantized GEMM
// (F32, F16, BF16 panels) on one core at decode batch sizes, weights in L3. Never part of
// the test suite.
// Also one decode row's attention (CpuKernels::attendRow) over a paged KV cache.
// --attention-dram: a decode row's attention as a 415M Llama's decode step runs it (head_dim
// 128, 3 query heads per KV head, 4 KV heads, 544 cached tokens), over many layers' caches
// so that every byte comes from memory: the KV bytes per second on one core against a
// streaming read on the same core.
//   bench_quant_kernels [--gemm [K N] | --attention | --attention-dram]   (--gemm: only
//   the unquantized GEMM, of K × N; --attention: only the attention)
#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <ctime>
#include <cstdio>
#include <random>
#include <memory>
#include <vector>

#include <sys/mman.h>

#include "engine/common/dtype.h"
#include "engine/exec/cpu/gemm.h"
#include "engine/exec/cpu/kernels.h"
#include "engine/exec/cpu/quant_kernels.h"
#include "engine/exec/cpu/thread_pool.h"
#include "engine/model/quant.h"

using namespace lwb;

namespace {

// This thread's CPU time: on a shared machine the wall clock also counts the time slices
// other processes took.
double threadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

template <typename F>
double bestSeconds(F f) {
  double best = 1e30;
  for (int rep = 0; rep < 7; ++rep) {
    const double t0 = threadSeconds();
    f();
    best = std::min(best, threadSeconds() - t0);
  }
  return best;
}

// Activation rows: n gaussian values quantized to t.
template <typename Block>
std::vector<Block> randomBlocks(GgmlType t, size_t n, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = dist(rng);
  std::vector<Block> out(n / size_t(ggmlBlockSize(t)));
  quantizeRow(t, x.data(), out.data(), int64_t(n));
  return out;
}

// Weights: random bytes (the quants), finite half scales; the speed does not depend on
// the values.
template <typename Block>
std::vector<Block> randomWeights(size_t numBlocks, std::mt19937& rng) {
  std::vector<Block> out(numBlocks);
  auto* bytes = reinterpret_cast<uint8_t*>(out.data());
  for (size_t i = 0; i < out.size() * sizeof(Block); ++i) bytes[i] = uint8_t(rng());
  for (Block& b : out) {
    b.d = floatToF16(0.01f);
    if constexpr (requires { b.m; }) b.m = floatToF16(0.01f);
    if constexpr (requires { b.dmin; }) b.dmin = floatToF16(0.01f);
  }
  return out;
}

struct Row {
  double dotGBs = 0, tileGmacs = 0, rowsGBs = 0;
  QuantTileDims dims;
  int decodeRows = 0;
};

// 64 weight rows of K = 4096 (Q8_0: 278 KiB, in L2) against 4 activation rows.
template <typename Block, typename Act>
Row measure(GgmlType type, GgmlType actType, float (*dot)(const Block*, const Act*, int), QuantTileFn<Block, Act> tile,
            QuantTileDims dims = {}, QuantRows<Block, Act> rowsKernel = {}) {
  constexpr int K = 4096, rows = 64, iters = 200;
  std::mt19937 rng(1);
  const auto w = randomWeights<Block>(size_t(K) * rows / size_t(ggmlBlockSize(type)), rng);
  const auto x = randomBlocks<Act>(actType, size_t(K) * size_t(dims.rows), rng);
  const int nb = K / ggmlBlockSize(type), nbx = K / ggmlBlockSize(actType);
  volatile float sink = 0;
  const double tDot = bestSeconds([&] {
    for (int it = 0; it < iters; ++it)
      for (int r = 0; r < rows; ++r) sink = sink + dot(&w[size_t(r) * size_t(nb)], x.data(), nb);
  });
  float y[kQuantTileMax * kQuantTileMax];  // >= rows
  const Act* xs[kQuantTileMax];
  for (int r = 0; r < dims.rows; ++r) xs[r] = x.data() + size_t(r) * size_t(nbx);
  const int tileIters = iters / dims.rows;
  const double tTile = bestSeconds([&] {
    for (int it = 0; it < tileIters; ++it)
      for (int r = 0; r + dims.cols <= rows; r += dims.cols) {
        const Block* ws[kQuantTileMax];
        for (int c = 0; c < dims.cols; ++c) ws[c] = &w[size_t(r + c) * size_t(nb)];
        tile(ws, xs, nb, y, size_t(dims.cols));
      }
    sink = sink + y[0];
  });
  const double macs = double(tileIters) * dims.rows * rows * K;
  const double bytes = double(iters) * double(w.size()) * sizeof(Block);
  double tRows = 0;
  const int decodeRows = rowsKernel.rows;
  if (rowsKernel.fn != nullptr) {
    tRows = bestSeconds([&] {
      for (int it = 0; it < iters; ++it) rowsKernel.fn(w.data(), x.data(), nb, y, rows / decodeRows * decodeRows);
      sink = sink + y[0];
    });
  }
  return {bytes / tDot / 1e9, macs / tTile / 1e9, tRows > 0 ? bytes / tRows / 1e9 : 0.0, dims, decodeRows};
}

void print(const char* isa, const char* type, const Row& r) {
  char rows[48] = "";
  if (r.decodeRows > 0) std::snprintf(rows, sizeof rows, ", %d rows %6.1f GB/s", r.decodeRows, r.rowsGBs);
  std::printf("%-8s %-5s decode: dot %6.1f GB/s%s   prefill: %dx%d tile %6.1f GMAC/s\n", isa, type, r.dotGBs, rows,
              r.dims.rows, r.dims.cols, r.tileGmacs);
}

// gemm() of K × N weights (by default 1024 × 4096, 8 MiB in 16 bits: past L2, in L3) on
// the calling thread alone, GFLOP/s for each row count: the decode tiles' rate without the
// memory bandwidth or the rest of a decode step, and at 256 rows the prefill tiles' rate
// they are held against (issue 19: decode batches at >= 85 % of prefill's GFLOP/s).
// SIMD ISAs only.
void gemm16(ThreadPool& one, Isa isa, DType dtype, int K, int N) {
  const CpuKernels& kernels = cpuKernels(isa);  // once: the CPUID behind it traps in a VM
  constexpr int kMaxRows = 256;
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> wf(size_t(N) * size_t(K)), x(size_t(kMaxRows) * size_t(K)), y(size_t(kMaxRows) * size_t(N));
  for (float& v : wf) v = dist(rng);
  for (float& v : x) v = dist(rng);
  std::vector<uint16_t> w16(wf.size());
  for (size_t i = 0; i < wf.size(); ++i) w16[i] = dtype == DType::BF16 ? floatToBf16(wf[i]) : floatToF16(wf[i]);
  const void* data = dtype == DType::F32 ? static_cast<const void*>(wf.data()) : w16.data();
  const PackedMatrix w = packMatrix(one, {data, dtype, N, K});
  std::printf("%-8s %-5s GEMM K %d N %d:", isaName(isa), dtypeName(dtype).data(), K, N);
  double prefill = 0;
  for (int rows : {kMaxRows, 1, 8, 16, 32, 64}) {
    const int iters = std::max(2, 64 / rows);
    const double t = bestSeconds([&] {
      for (int it = 0; it < iters; ++it) gemm(one, kernels, x.data(), size_t(K), rows, {{&w, y.data(), size_t(N)}});
    });
    const double gflops = 2.0 * iters * rows * double(K) * N / t / 1e9;
    if (rows == kMaxRows) {
      prefill = gflops;
      std::printf("  %d rows %6.1f |", rows, gflops);
    } else {
      std::printf("  %2d rows %6.1f (%3.0f %%)", rows, gflops, 100.0 * gflops / prefill);
    }
  }
  std::printf(" GFLOP/s (%% of 256 rows)\n");
}

// One decode row's attention, G query heads on one KV head of head_dim 64, over n cached
// positions in 16-slot blocks scattered over the pool (as a serving engine's are), f32 and
// bf16 caches: GFLOP/s (4·G·n·64 per row: scores and Σ p·V) on the calling thread.
void attention(Isa isa, DType type) {
  const CpuKernels& kernels = cpuKernels(isa);  // once: the CPUID behind it traps in a VM
  constexpr int d = 64, blockSize = 16;
  std::printf("%-8s %-5s attention, head_dim %d, GFLOP/s:", isaName(isa), dtypeName(type).data(), d);
  for (int n : {128, 512, 2048}) {
    const int numBlocks = n / blockSize;
    std::vector<int32_t> blockTable(static_cast<size_t>(numBlocks));
    for (int b = 0; b < numBlocks; ++b) blockTable[size_t(b)] = int32_t((size_t(b) * 7919) % size_t(numBlocks));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const size_t elems = size_t(numBlocks) * blockSize * d;
    std::vector<float> kf(elems), vf(elems);
    for (float& v : kf) v = dist(rng);
    for (float& v : vf) v = dist(rng);
    std::vector<uint16_t> k16(elems), v16(elems);
    for (size_t i = 0; i < elems; ++i) k16[i] = floatToBf16(kf[i]), v16[i] = floatToBf16(vf[i]);
    const bool bf16 = type == DType::BF16;
    const PagedKv kv{blockTable.data(), blockSize, bf16 ? static_cast<const void*>(k16.data()) : kf.data(), size_t(d) * blockSize,
                     bf16 ? static_cast<const void*>(v16.data()) : vf.data(), size_t(d) * blockSize, size_t(d), type};
    for (int G : {1, 3, 4, 7}) {
      std::vector<float> q(size_t(G) * d), out(size_t(G) * d), scratch(size_t(G) * (scoreStride(n) + 1));
      for (float& v : q) v = dist(rng);
      const int iters = std::max(1, 20000 / n);
      const double t = bestSeconds([&] {
        for (int it = 0; it < iters; ++it) kernels.attendRow(q.data(), G, d, kv, n, 0.125f, scratch.data(), out.data());
      });
      std::printf("  n %d G %d %5.1f", n, G, 4.0 * G * n * d * iters / t / 1e9);
    }
  }
  std::printf("\n");
}

// One thread's streaming read of `bytes`, best of 3 → GB/s (thread CPU time).
double streamRead(size_t bytes) {
  std::vector<uint64_t> buf(bytes / sizeof(uint64_t), 1);
  uint64_t sink = 0;
  const double t = bestSeconds([&] {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i < buf.size(); i += 4) s0 += buf[i], s1 += buf[i + 1], s2 += buf[i + 2], s3 += buf[i + 3];
    sink += s0 + s1 + s2 + s3;
  });
  if (sink == 42) std::printf(" ");
  return double(bytes) / t / 1e9;
}

// n bytes, 2 MiB aligned, advised to transparent huge pages when `huge`.
std::shared_ptr<uint8_t> pages(size_t n, bool huge) {
  const size_t align = size_t(2) << 20, size = (n + align - 1) / align * align;
  std::shared_ptr<uint8_t> p(static_cast<uint8_t*>(std::aligned_alloc(align, size)), std::free);
  if (huge) madvise(p.get(), size, MADV_HUGEPAGE);
  return p;
}

void attentionDram(Isa isa, DType type, bool huge) {
  constexpr int d = 128, G = 3, kvHeads = 4, blockSize = 16, n = 544, layers = 96;  // 2x L3 in bf16
  const int numBlocks = (n + blockSize - 1) / blockSize;
  const size_t esize = dtypeSize(type), perLayer = size_t(numBlocks) * blockSize * kvHeads * d;
  const size_t bytes = perLayer * layers * esize;
  const std::shared_ptr<uint8_t> kp = pages(bytes, huge), vp = pages(bytes, huge);
  uint8_t *k = kp.get(), *v = vp.get();
  std::mt19937 rng(5);
  for (size_t i = 0; i < bytes; i += 2) {  // small finite values in every element type
    k[i] = uint8_t(rng() & 0x3f), v[i] = uint8_t(rng() & 0x3f);
    k[i + 1] = 0x3c, v[i + 1] = 0x3c;
  }
  std::vector<int32_t> table(static_cast<size_t>(numBlocks));
  for (int b = 0; b < numBlocks; ++b) table[size_t(b)] = b;
  std::vector<float> q(size_t(G) * d, 0.01f), out(size_t(G) * d), scratch(size_t(G) * (scoreStride(n) + 1));
  const CpuKernels& kernels = cpuKernels(isa);  // once: the CPUID behind it traps in a VM
  const double t = bestSeconds([&] {
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < kvHeads; ++h) {
        const uint8_t* kl = k + perLayer * size_t(l) * esize;
        const uint8_t* vl = v + perLayer * size_t(l) * esize;
        const PagedKv kv{table.data(), blockSize, kl + size_t(h) * d * blockSize * esize, size_t(kvHeads) * d * blockSize,
                         vl + size_t(h) * d * esize, size_t(blockSize) * kvHeads * d, size_t(kvHeads) * d, type};
        kernels.attendRow(q.data(), G, d, kv, n, 0.088f, scratch.data(), out.data());
      }
  });
  const double read = 2.0 * double(n) * d * kvHeads * layers * double(esize);
  std::printf("%-8s %-5s decode attention from memory (d %d, G %d, n %d, %s pages): %5.1f GB/s, %.1f us per layer\n",
              isaName(isa), dtypeName(type).data(), d, G, n, huge ? "2 MiB" : "4 KiB", read / t / 1e9, t / layers * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "--attention-dram") {
    std::printf("one core's streaming read: %.1f GB/s\n", streamRead(size_t(256) << 20));
    for (DType type : {DType::F32, DType::BF16})  // the ISA the executor runs (LWB_CPU_ISA)
      for (bool huge : {false, true}) attentionDram(detectIsa(), type, huge);
    return 0;
  }
  if (argc > 1 && std::string_view(argv[1]) == "--attention") {
    for (Isa isa : supportedIsas())
      for (DType type : {DType::F32, DType::BF16}) attention(isa, type);
    return 0;
  }
  const bool gemmOnly = argc > 1 && std::string_view(argv[1]) == "--gemm";
  const int K = gemmOnly && argc > 3 ? std::atoi(argv[2]) : 1024, N = gemmOnly && argc > 3 ? std::atoi(argv[3]) : 4096;
  if (K <= 0 || N <= 0) {
    std::fprintf(stderr, "bench_quant_kernels: --gemm K N needs two positive integers\n");
    return 2;
  }
  if (!gemmOnly) std::printf("one core (thread CPU time, best of 7), weights in L2 (64 rows of K = 4096)\n");
  for (Isa isa : gemmOnly ? std::vector<Isa>{} : supportedIsas()) {
    const QuantKernels& qk = quantKernels(isa);
    const char* name = isaName(isa);
    print(name, "Q8_0", measure(GgmlType::Q8_0, GgmlType::Q8_0, qk.dotQ8_0, qk.tileQ8_0, qk.tileDimsQ8_0));
    print(name, "Q4_0", measure(GgmlType::Q4_0, GgmlType::Q8_0, qk.dotQ4_0, qk.tileQ4_0, qk.tileDimsQ4_0, qk.rowsQ4_0));
    print(name, "Q4_1", measure(GgmlType::Q4_1, GgmlType::Q8_0, qk.dotQ4_1, qk.tileQ4_1, {}, qk.rowsQ4_1));
    print(name, "Q5_0", measure(GgmlType::Q5_0, GgmlType::Q8_0, qk.dotQ5_0, qk.tileQ5_0, qk.tileDimsQ5_0, qk.rowsQ5_0));
    print(name, "Q5_1", measure(GgmlType::Q5_1, GgmlType::Q8_0, qk.dotQ5_1, qk.tileQ5_1, {}, qk.rowsQ5_1));
    print(name, "Q4_K", measure(GgmlType::Q4_K, GgmlType::Q8_K, qk.dotQ4_K, qk.tileQ4_K));
    print(name, "Q5_K", measure(GgmlType::Q5_K, GgmlType::Q8_K, qk.dotQ5_K, qk.tileQ5_K));
    print(name, "Q6_K", measure(GgmlType::Q6_K, GgmlType::Q8_K, qk.dotQ6_K, qk.tileQ6_K));
  }
  ThreadPool one(1);
  for (Isa isa : supportedIsas())  // not the scalar one: 256 rows of it would take minutes
    if (isa != Isa::Scalar)
      for (DType dtype : {DType::F32, DType::F16, DType::BF16}) gemm16(one, isa, dtype, K, N);
  return 0;
}
