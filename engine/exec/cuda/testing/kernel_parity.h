#pragma once
// Each CUDA kernel against a CPU computation on random inputs, in bf16 and f16, through
// the plugin's lwb_cuda_test_kernel entry: the cases and their CPU references, free of
// Qt so that both tst_cuda_kernels (Qt Test) and bench_cuda --kernels (the device
// check's standalone build) run the same ones. The plugin poisons every output with NaN
// first, so an unwritten element fails. The CPU side rounds the inputs to the
// activation type itself, so what remains is accumulation order and output rounding:
// per-dtype tolerances. Header-only; needs engine/common/dtype.cpp for f16.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "engine/common/dtype.h"
#include "engine/exec/cuda/plugin_abi.h"

namespace lwb::devcheck {

struct KernelCase {
  std::string kernel;  // lwb_cuda_test_kernel's name
  std::string name;    // "bf16 7x777"
  int dtype = LWB_CUDA_BF16;
  std::vector<int> dims;  // per kernel, see the kernelCases() comments
};

namespace kernel_parity_detail {

inline float roundTo(int dtype, float v) {
  return dtype == LWB_CUDA_F16 ? f16ToFloat(floatToF16(v)) : bf16ToFloat(floatToBf16(v));
}
// Relative precision of one rounding to the activation type.
inline double epsOf(int dtype) { return dtype == LWB_CUDA_F16 ? 1.0 / 1024 : 1.0 / 128; }

inline std::vector<float> randomFloats(size_t n, unsigned seed, float lo = -1.f, float hi = 1.f, int roundDtype = -1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = roundDtype >= 0 ? roundTo(roundDtype, u(rng)) : u(rng);
  return v;
}

// "" when |got - ref| <= atol + rtol * |ref| everywhere (NaN fails), else the first miss.
inline std::string compare(const std::vector<float>& got, const std::vector<double>& ref, double rtol, double atol,
                           const char* what) {
  if (got.size() != ref.size()) return std::string(what) + ": size mismatch";
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(double(got[i]) - ref[i]);
    if (!(d <= atol + rtol * std::fabs(ref[i]))) {
      char b[160];
      std::snprintf(b, sizeof b, "%s[%zu]: got %.7g, expected %.7g", what, i, double(got[i]), ref[i]);
      return b;
    }
  }
  return "";
}

inline std::string run(LwbCudaTestKernelFn fn, LwbCudaKernelTest& t) {
  char err[1024] = {0};
  return fn(&t, err, sizeof err) == 0 ? "" : std::string("lwb_cuda_test_kernel: ") + err;
}

inline std::string embedding(LwbCudaTestKernelFn fn, int dtype, const std::vector<int>& dims) {
  const int rows = dims[0], vocab = dims[1], hidden = dims[2];
  const std::vector<float> table = randomFloats(size_t(vocab) * hidden, 1, -1, 1, dtype);
  std::vector<int32_t> ids(static_cast<size_t>(rows));
  for (int r = 0; r < rows; ++r) ids[size_t(r)] = (r * 7 + 3) % vocab;
  std::vector<float> out(size_t(rows) * hidden);
  LwbCudaKernelTest t{"embedding", dtype, {rows, vocab, hidden}, {}, {table.data(), ids.data()}, {out.data()}};
  if (std::string e = run(fn, t); !e.empty()) return e;
  std::vector<double> ref(out.size());
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < hidden; ++i) ref[size_t(r) * hidden + i] = table[size_t(ids[size_t(r)]) * hidden + i];
  return compare(out, ref, 0, 0, "residual");
}

inline std::string addRmsNorm(LwbCudaTestKernelFn fn, int dtype, const std::vector<int>& dims) {
  const int rows = dims[0], hidden = dims[1], hasDelta = dims[2], numOut = dims[3];
  const double eps = 1e-5;
  const std::vector<float> res = randomFloats(size_t(rows) * hidden, 2, -3, 3);
  const std::vector<float> delta = randomFloats(size_t(rows) * hidden, 3, -1, 1, dtype);
  const std::vector<float> w = randomFloats(size_t(hidden), 4, 0.5f, 1.5f);
  std::vector<int32_t> map;
  for (int o = 0; o < numOut; ++o) map.push_back((rows - 1 - 2 * o + rows) % rows);
  const int outRows = numOut ? numOut : rows;
  std::vector<float> normed(size_t(outRows) * hidden), resOut(res.size());
  LwbCudaKernelTest t{"add_rmsnorm", dtype, {rows, hidden, hasDelta, numOut}, {eps},
                      {res.data(), delta.data(), w.data(), map.data()}, {normed.data(), resOut.data()}};
  if (std::string e = run(fn, t); !e.empty()) return e;
  std::vector<double> refNorm(normed.size()), refRes(res.size());
  for (size_t k = 0; k < res.size(); ++k) refRes[k] = double(res[k]) + (hasDelta ? delta[k] : 0.0);
  for (int o = 0; o < outRows; ++o) {
    const int r = numOut ? map[size_t(o)] : o;
    double ss = 0;
    for (int i = 0; i < hidden; ++i) ss += refRes[size_t(r) * hidden + i] * refRes[size_t(r) * hidden + i];
    const double inv = 1 / std::sqrt(ss / hidden + eps);
    for (int i = 0; i < hidden; ++i) refNorm[size_t(o) * hidden + i] = refRes[size_t(r) * hidden + i] * inv * w[size_t(i)];
  }
  if (std::string e = compare(normed, refNorm, epsOf(dtype), 1e-4, "normed"); !e.empty()) return e;
  // Gathering (final norm) leaves the residual alone; otherwise it is updated.
  const std::vector<double> unchanged(res.begin(), res.end());
  return compare(resOut, numOut ? unchanged : refRes, 1e-6, 1e-6, "residual");
}

inline std::string swiGlu(LwbCudaTestKernelFn fn, int dtype, const std::vector<int>& dims) {
  const int rows = dims[0], inter = dims[1];
  const std::vector<float> gu = randomFloats(size_t(rows) * 2 * inter, 5, -4, 4, dtype);
  std::vector<float> out(size_t(rows) * inter);
  LwbCudaKernelTest t{"swiglu", dtype, {rows, inter}, {}, {gu.data()}, {out.data()}};
  if (std::string e = run(fn, t); !e.empty()) return e;
  std::vector<double> ref(out.size());
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < inter; ++i) {
      const double g = gu[size_t(r) * 2 * inter + i], u = gu[size_t(r) * 2 * inter + inter + i];
      ref[size_t(r) * inter + i] = g / (1 + std::exp(-g)) * u;
    }
  return compare(out, ref, epsOf(dtype), 1e-5, "act");
}

// The angle as Hugging Face and the CPU executor round it: float(pos) * invFreq in float.
inline double ropeAngle(int pos, float invFreq) {
  volatile float angle = float(pos) * invFreq;  // volatile: no wider intermediate
  return double(angle);
}

// Qwen's additions to a head before RoPE, in double: + bias (Qwen2), then RMSNorm over
// the head with its weight (Qwen3), as the CPU executor's finishQkv does.
struct QwenHeadPrep {
  std::vector<float> bias, qNorm, kNorm;  // empty: not this family
  double eps = 1e-6;
};

// The head starting at col0 of row r, bias added and normalised as `prep` says.
inline std::vector<double> preparedHead(const std::vector<float>& qkv, int width, int r, int col0, int d, bool isQ,
                                        const QwenHeadPrep& prep) {
  std::vector<double> x(static_cast<size_t>(d));
  for (int i = 0; i < d; ++i)
    x[size_t(i)] = double(qkv[size_t(r) * width + col0 + i]) + (prep.bias.empty() ? 0.0 : prep.bias[size_t(col0 + i)]);
  const std::vector<float>& w = isQ ? prep.qNorm : prep.kNorm;
  if (w.empty()) return x;
  double ss = 0;
  for (double v : x) ss += v * v;
  const double inv = 1 / std::sqrt(ss / d + prep.eps);
  for (int i = 0; i < d; ++i) x[size_t(i)] *= inv * w[size_t(i)];
  return x;
}

// dims: rows, heads, kvHeads, headDim, numSlots, first position, [family: 0 Llama,
// 2 Qwen2 (biases), 3 Qwen3 (q/k norms), 23 both].
inline std::string ropeCache(LwbCudaTestKernelFn fn, int dtype, const std::vector<int>& dims) {
  const int rows = dims[0], heads = dims[1], kvHeads = dims[2], d = dims[3], numSlots = dims[4], posBase = dims[5];
  const int family = dims.size() > 6 ? dims[6] : 0;
  const int qSize = heads * d, kvSize = kvHeads * d, width = qSize + 2 * kvSize;
  const std::vector<float> qkv = randomFloats(size_t(rows) * width, 6, -2, 2, dtype);
  QwenHeadPrep prep;
  if (family == 2 || family == 23) prep.bias = randomFloats(size_t(width), 7, -3, 3);  // real biases are large
  if (family == 3 || family == 23) prep.qNorm = randomFloats(size_t(d), 8, 0.5f, 2), prep.kNorm = randomFloats(size_t(d), 9, 0.5f, 2);
  std::vector<int32_t> pos, cacheSlots;
  for (int r = 0; r < rows; ++r) {
    pos.push_back(posBase + (r * 997 + 13) % 4000);
    cacheSlots.push_back(r == 1 ? -1 : (r * 3 + 1) % numSlots);  // row 1: no cache write
  }
  std::vector<float> invFreq;
  for (int i = 0; i < d / 2; ++i) invFreq.push_back(float(1 / std::pow(10000.0, 2.0 * i / d)));
  auto orNull = [](const std::vector<float>& v) -> const void* { return v.empty() ? nullptr : v.data(); };
  std::vector<float> q(size_t(rows) * qSize), kc(size_t(numSlots) * kvSize), vc(kc.size());
  LwbCudaKernelTest t{"rope_cache", dtype, {rows, heads, kvHeads, d, numSlots}, {prep.eps},
                      {qkv.data(), pos.data(), cacheSlots.data(), invFreq.data(), orNull(prep.bias),
                       orNull(prep.qNorm), orNull(prep.kNorm)},
                      {q.data(), kc.data(), vc.data()}};
  if (std::string e = run(fn, t); !e.empty()) return e;
  auto rotatedHead = [&](int r, int col0, bool isQ) {
    const std::vector<double> x = preparedHead(qkv, width, r, col0, d, isQ, prep);
    std::vector<double> out(static_cast<size_t>(d));
    const int half = d / 2;
    for (int j = 0; j < half; ++j) {
      const double angle = ropeAngle(pos[size_t(r)], invFreq[size_t(j)]);
      const double c = float(std::cos(angle)), s = float(std::sin(angle));
      out[size_t(j)] = x[size_t(j)] * c - x[size_t(j + half)] * s;
      out[size_t(j + half)] = x[size_t(j + half)] * c + x[size_t(j)] * s;
    }
    return out;
  };
  // fp32 arithmetic on values up to ~10 (biases, norm weights): a few ulps of that.
  const double tol = family == 0 ? 1e-5 : 1e-4;
  std::vector<double> refQ;
  for (int r = 0; r < rows; ++r)
    for (int h = 0; h < heads; ++h) {
      const std::vector<double> head = rotatedHead(r, h * d, true);
      refQ.insert(refQ.end(), head.begin(), head.end());
    }
  if (std::string e = compare(q, refQ, tol, tol, "q"); !e.empty()) return e;
  std::vector<bool> written(size_t(numSlots), false);
  for (int r = 0; r < rows; ++r) {
    if (cacheSlots[size_t(r)] < 0) continue;
    const size_t s = size_t(cacheSlots[size_t(r)]);
    written[s] = true;
    std::vector<float> gotK, gotV;
    std::vector<double> refK, refV;
    for (int h = 0; h < kvHeads; ++h) {
      const std::vector<double> head = rotatedHead(r, qSize + h * d, false);
      refK.insert(refK.end(), head.begin(), head.end());
      for (int i = 0; i < d; ++i) {
        gotK.push_back(kc[s * kvSize + h * d + i]);
        gotV.push_back(vc[s * kvSize + h * d + i]);
        const int col = qSize + kvSize + h * d + i;
        refV.push_back(double(qkv[size_t(r) * width + col]) + (prep.bias.empty() ? 0.0 : prep.bias[size_t(col)]));
      }
    }
    if (std::string e = compare(gotK, refK, epsOf(dtype), 1e-4, "kCache"); !e.empty()) return e;
    // v is copied exactly, or rounded once after its bias is added.
    const bool exact = prep.bias.empty();
    if (std::string e = compare(gotV, refV, exact ? 0 : epsOf(dtype), exact ? 0 : 1e-5, "vCache"); !e.empty()) return e;
  }
  for (int s = 0; s < numSlots; ++s)
    if (!written[size_t(s)] && !(std::isnan(kc[size_t(s) * kvSize]) && std::isnan(vc[size_t(s) * kvSize])))
      return "slot " + std::to_string(s) + ": written, but no row maps to it";
  return "";
}

// dims: heads, kvHeads, headDim, blockSize, partitionSize, then (numCached, numTokens)
// pairs; every sequence gets its own blocks, interleaved and shuffled across the pool.
inline std::string attention(LwbCudaTestKernelFn fn, int dtype, const std::vector<int>& dims) {
  const int heads = dims[0], kvHeads = dims[1], d = dims[2], bs = dims[3], partition = dims[4];
  const std::vector<int32_t> seqInfo(dims.begin() + 5, dims.end());
  const int numSeqs = int(seqInfo.size() / 2);
  int maxBlocks = 0, rows = 0;
  for (int s = 0; s < numSeqs; ++s) {
    maxBlocks = std::max(maxBlocks, (seqInfo[size_t(2 * s)] + seqInfo[size_t(2 * s + 1)] + bs - 1) / bs);
    rows += seqInfo[size_t(2 * s + 1)];
  }
  const int numBlocks = numSeqs * maxBlocks + 3;
  std::vector<int32_t> perm(static_cast<size_t>(numBlocks));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(9));
  const std::vector<int32_t> tables(perm.begin(), perm.begin() + size_t(numSeqs) * maxBlocks);
  const int kvSize = kvHeads * d, qSize = heads * d;
  const std::vector<float> q = randomFloats(size_t(rows) * qSize, 10, -2, 2);
  const std::vector<float> kc = randomFloats(size_t(numBlocks) * bs * kvSize, 11, -2, 2, dtype);
  const std::vector<float> vc = randomFloats(kc.size(), 12, -1, 1, dtype);
  std::vector<float> out(size_t(rows) * qSize);
  LwbCudaKernelTest t{"attention", dtype, {heads, kvHeads, d, bs, numBlocks, numSeqs, maxBlocks},
                      {double(partition)}, {q.data(), kc.data(), vc.data(), seqInfo.data(), tables.data()},
                      {out.data()}};
  if (std::string e = run(fn, t); !e.empty()) return e;
  std::vector<double> ref(out.size());
  int row = 0;
  for (int s = 0; s < numSeqs; ++s)
    for (int i = 0; i < seqInfo[size_t(2 * s + 1)]; ++i, ++row) {
      const int pos = seqInfo[size_t(2 * s)] + i;
      for (int h = 0; h < heads; ++h) {
        const int kvh = h / (heads / kvHeads);
        auto at = [&](const std::vector<float>& cache, int kp, int e) {
          const size_t slot = size_t(tables[size_t(s) * maxBlocks + kp / bs]) * bs + kp % bs;
          return double(cache[slot * kvSize + kvh * d + e]);
        };
        std::vector<double> w(size_t(pos) + 1);
        double mx = -INFINITY, sum = 0;
        for (int p2 = 0; p2 <= pos; ++p2) {
          double sc = 0;
          for (int e = 0; e < d; ++e) sc += double(q[size_t(row) * qSize + h * d + e]) * at(kc, p2, e);
          w[size_t(p2)] = sc / std::sqrt(double(d));
          mx = std::max(mx, w[size_t(p2)]);
        }
        for (double& x : w) sum += (x = std::exp(x - mx));
        for (int e = 0; e < d; ++e) {
          double o = 0;
          for (int p2 = 0; p2 <= pos; ++p2) o += w[size_t(p2)] / sum * at(vc, p2, e);
          ref[size_t(row) * qSize + h * d + e] = o;
        }
      }
    }
  return compare(out, ref, 2 * epsOf(dtype), 2e-3, "attention");
}

inline std::string gemm(LwbCudaTestKernelFn fn, int dtype, const std::vector<int>& dims) {
  const int rows = dims[0], k = dims[1], n = dims[2], f32 = dims[3];
  const std::vector<float> x = randomFloats(size_t(rows) * k, 13, -1, 1, dtype);
  const std::vector<float> w = randomFloats(size_t(n) * k, 14, -1, 1, dtype);
  std::vector<float> y(size_t(rows) * n);
  LwbCudaKernelTest t{"gemm", dtype, {rows, k, n, f32}, {}, {x.data(), w.data()}, {y.data()}};
  if (std::string e = run(fn, t); !e.empty()) return e;
  std::vector<double> ref(y.size());
  double absSum = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < n; ++c) {
      double s = 0;
      for (int i = 0; i < k; ++i) {
        s += double(x[size_t(r) * k + i]) * w[size_t(c) * k + i];
        absSum = std::max(absSum, std::fabs(double(x[size_t(r) * k + i]) * w[size_t(c) * k + i]) * k);
      }
      ref[size_t(r) * n + c] = s;
    }
  return compare(y, ref, f32 ? 1e-5 : epsOf(dtype), 1e-5 * absSum, "y");
}

}  // namespace kernel_parity_detail

// Every case, in bf16 and f16.
inline std::vector<KernelCase> kernelCases() {
  const std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::vector<int>>>>> byKernel = {
      // rows, vocab, hidden
      {"embedding", {{"1x64", {1, 10, 64}}, {"7x777", {7, 50, 777}}, {"33x2048", {33, 300, 2048}}}},
      // rows, hidden, hasDelta, numOut (gather)
      {"add_rmsnorm",
       {{"1x64 no delta", {1, 64, 0, 0}}, {"5x384", {5, 384, 1, 0}}, {"17x777", {17, 777, 1, 0}},
        {"9x2048 gather 3", {9, 2048, 1, 3}}}},
      // rows, inter
      {"swiglu", {{"1x128", {1, 128}}, {"7x1000", {7, 1000}}, {"33x5632", {33, 5632}}}},
      // rows, heads, kvHeads, headDim, numSlots, first position
      {"rope_cache",
       {{"1 row d64", {1, 4, 2, 64, 8, 0}}, {"5 rows d128 gqa", {5, 8, 1, 128, 40, 0}},
        {"13 rows d32 mha", {13, 6, 6, 32, 64, 0}}, {"6 rows d80 at 500k", {6, 4, 2, 80, 16, 500000}},
        // Qwen2.5-0.5B's heads (14:2, d64) with biases; Qwen3's (16:8, d128) with q/k norms
        {"qwen2 biases 5 rows 14:2 d64", {5, 14, 2, 64, 16, 0, 2}},
        {"qwen3 norms 5 rows 16:8 d128", {5, 16, 8, 128, 16, 0, 3}},
        {"qwen biases+norms 4 rows d256 at 500k", {4, 8, 1, 256, 8, 500000, 23}}}},
      // heads, kvHeads, headDim, blockSize, partitionSize, then (numCached, numTokens) pairs
      {"attention",
       {{"decode short", {4, 2, 64, 16, 512, 0, 1, 16, 1, 40, 1}},
        {"decode split", {4, 2, 64, 16, 64, 300, 1, 63, 1, 64, 1, 1000, 1}},
        {"prefill", {8, 1, 128, 8, 512, 0, 37, 0, 1}},
        {"chunk after cache", {6, 6, 32, 16, 512, 50, 20, 3, 29}},
        {"mixed", {4, 2, 64, 16, 128, 0, 33, 200, 1, 17, 48, 700, 1, 5, 5}},
        // Decode (fewer warps) launched before the prompt tile: the opt-in must cover both.
        {"d256 group 8", {8, 1, 256, 32, 256, 90, 9, 600, 1}},
        {"d128 group 4", {16, 4, 128, 16, 256, 0, 40, 700, 1, 20, 3}},
        {"d80 group 4", {8, 2, 80, 16, 128, 0, 37, 300, 1, 5, 2}},
        {"d40 mha", {4, 4, 40, 16, 64, 10, 20, 100, 1}},
        {"d96 group 32", {32, 1, 96, 16, 256, 0, 3, 400, 1}}}},
      // rows, k, n, f32 out
      {"gemm",
       {{"1x64x64", {1, 64, 64, 0}}, {"7x384x1000 f32", {7, 384, 1000, 1}}, {"33x2048x517", {33, 2048, 517, 0}},
        {"129x777x96 f32", {129, 777, 96, 1}}}},
  };
  std::vector<KernelCase> out;
  for (const auto& [kernel, sizes] : byKernel)
    for (int dtype : {int(LWB_CUDA_BF16), int(LWB_CUDA_F16)})
      for (const auto& [name, dims] : sizes)
        out.push_back({kernel, std::string(dtype == LWB_CUDA_F16 ? "f16 " : "bf16 ") + name, dtype, dims});
  return out;
}

// "" when the kernel matches its CPU reference, else what differed.
inline std::string runKernelCase(LwbCudaTestKernelFn fn, const KernelCase& c) {
  namespace d = kernel_parity_detail;
  if (c.kernel == "embedding") return d::embedding(fn, c.dtype, c.dims);
  if (c.kernel == "add_rmsnorm") return d::addRmsNorm(fn, c.dtype, c.dims);
  if (c.kernel == "swiglu") return d::swiGlu(fn, c.dtype, c.dims);
  if (c.kernel == "rope_cache") return d::ropeCache(fn, c.dtype, c.dims);
  if (c.kernel == "attention") return d::attention(fn, c.dtype, c.dims);
  if (c.kernel == "gemm") return d::gemm(fn, c.dtype, c.dims);
  return "unknown kernel " + c.kernel;
}

}  // namespace lwb::devcheck
