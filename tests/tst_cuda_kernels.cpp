// Each CUDA kernel against a CPU computation on random inputs, in bf16 and f16, over
// several sizes (odd ones included), through the plugin's lwb_cuda_test_kernel entry.
// The plugin poisons every output with NaN first, so an unwritten element fails. The
// CPU side rounds the inputs to the activation type itself, so what remains is
// accumulation order and output rounding: per-dtype tolerances. Skips (with the
// loader's reason) where there is no CUDA device or the plugin is not built.
#include <QtTest>

#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "engine/common/dtype.h"
#include "engine/exec/cuda/plugin_loader.h"

namespace {

const lwb::cudaplugin::Plugin* plugin(std::string* reason) {
  const lwb::cudaplugin::Plugin* p = lwb::cudaplugin::openUsablePlugin(0, reason);
  if (p && !p->testKernel) {
    *reason = "the CUDA plugin has no lwb_cuda_test_kernel";
    return nullptr;
  }
  return p;
}

#define REQUIRE_PLUGIN(p)                                 \
  std::string skipReason;                                 \
  const lwb::cudaplugin::Plugin* p = plugin(&skipReason); \
  if (!p) QSKIP(skipReason.c_str())

float roundTo(int dtype, float v) {
  return dtype == LWB_CUDA_F16 ? lwb::f16ToFloat(lwb::floatToF16(v)) : lwb::bf16ToFloat(lwb::floatToBf16(v));
}
// Relative precision of one rounding to the activation type.
double epsOf(int dtype) { return dtype == LWB_CUDA_F16 ? 1.0 / 1024 : 1.0 / 128; }

std::vector<float> randomFloats(size_t n, unsigned seed, float lo = -1.f, float hi = 1.f, int roundDtype = -1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = roundDtype >= 0 ? roundTo(roundDtype, u(rng)) : u(rng);
  return v;
}

void run(const lwb::cudaplugin::Plugin* p, LwbCudaKernelTest& t) {
  char err[1024] = {0};
  QVERIFY2(p->testKernel(&t, err, sizeof err) == 0, err);
}

// |got - ref| <= atol + rtol * |ref| everywhere (NaN fails).
void compare(const std::vector<float>& got, const std::vector<double>& ref, double rtol, double atol,
             const char* what) {
  QCOMPARE(got.size(), ref.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(double(got[i]) - ref[i]);
    if (!(d <= atol + rtol * std::fabs(ref[i])))
      QFAIL(qPrintable(QString("%1[%2]: got %3, expected %4").arg(what).arg(i).arg(got[i]).arg(ref[i])));
  }
}

void addDtypeRows(const std::vector<std::pair<const char*, std::vector<int>>>& sizes) {
  for (int dtype : {int(LWB_CUDA_BF16), int(LWB_CUDA_F16)})
    for (const auto& [name, dims] : sizes) {
      QVector<int> d(dims.begin(), dims.end());
      QTest::addRow("%s %s", dtype == LWB_CUDA_F16 ? "f16" : "bf16", name) << dtype << d;
    }
}

}  // namespace

class TestCudaKernels : public QObject {
  Q_OBJECT

 private slots:
  void embedding_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QVector<int>>("dims");  // rows, vocab, hidden
    addDtypeRows({{"1x64", {1, 10, 64}}, {"7x777", {7, 50, 777}}, {"33x2048", {33, 300, 2048}}});
  }
  void embedding() {
    QFETCH(int, dtype);
    QFETCH(QVector<int>, dims);
    REQUIRE_PLUGIN(p);
    const int rows = dims[0], vocab = dims[1], hidden = dims[2];
    const std::vector<float> table = randomFloats(size_t(vocab) * hidden, 1, -1, 1, dtype);
    std::vector<int32_t> ids(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r) ids[size_t(r)] = (r * 7 + 3) % vocab;
    std::vector<float> out(size_t(rows) * hidden);
    LwbCudaKernelTest t{"embedding", dtype, {rows, vocab, hidden}, {}, {table.data(), ids.data()}, {out.data()}};
    run(p, t);
    std::vector<double> ref(out.size());
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < hidden; ++i) ref[size_t(r) * hidden + i] = table[size_t(ids[size_t(r)]) * hidden + i];
    compare(out, ref, 0, 0, "residual");
  }

  void addRmsNorm_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QVector<int>>("dims");  // rows, hidden, hasDelta, numOut (gather)
    addDtypeRows({{"1x64 no delta", {1, 64, 0, 0}},
                  {"5x384", {5, 384, 1, 0}},
                  {"17x777", {17, 777, 1, 0}},
                  {"9x2048 gather 3", {9, 2048, 1, 3}}});
  }
  void addRmsNorm() {
    QFETCH(int, dtype);
    QFETCH(QVector<int>, dims);
    REQUIRE_PLUGIN(p);
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
    run(p, t);
    std::vector<double> refNorm(normed.size()), refRes(res.size());
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < hidden; ++i) {
        const size_t k = size_t(r) * hidden + i;
        refRes[k] = double(res[k]) + (hasDelta ? delta[k] : 0.0);
      }
    for (int o = 0; o < outRows; ++o) {
      const int r = numOut ? map[size_t(o)] : o;
      double ss = 0;
      for (int i = 0; i < hidden; ++i) ss += refRes[size_t(r) * hidden + i] * refRes[size_t(r) * hidden + i];
      const double inv = 1 / std::sqrt(ss / hidden + eps);
      for (int i = 0; i < hidden; ++i) refNorm[size_t(o) * hidden + i] = refRes[size_t(r) * hidden + i] * inv * w[size_t(i)];
    }
    compare(normed, refNorm, epsOf(dtype), 1e-4, "normed");
    // Gathering (final norm) leaves the residual alone; otherwise it is updated.
    std::vector<double> expectRes(res.begin(), res.end());
    compare(resOut, numOut ? expectRes : refRes, 1e-6, 1e-6, "residual");
  }

  void swiGlu_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QVector<int>>("dims");  // rows, inter
    addDtypeRows({{"1x128", {1, 128}}, {"7x1000", {7, 1000}}, {"33x5632", {33, 5632}}});
  }
  void swiGlu() {
    QFETCH(int, dtype);
    QFETCH(QVector<int>, dims);
    REQUIRE_PLUGIN(p);
    const int rows = dims[0], inter = dims[1];
    const std::vector<float> gu = randomFloats(size_t(rows) * 2 * inter, 5, -4, 4, dtype);
    std::vector<float> out(size_t(rows) * inter);
    LwbCudaKernelTest t{"swiglu", dtype, {rows, inter}, {}, {gu.data()}, {out.data()}};
    run(p, t);
    std::vector<double> ref(out.size());
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < inter; ++i) {
        const double g = gu[size_t(r) * 2 * inter + i], u = gu[size_t(r) * 2 * inter + inter + i];
        ref[size_t(r) * inter + i] = g / (1 + std::exp(-g)) * u;
      }
    compare(out, ref, epsOf(dtype), 1e-5, "act");
  }

  void ropeCache_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QVector<int>>("dims");  // rows, heads, kvHeads, headDim, numSlots
    addDtypeRows({{"1 row d64", {1, 4, 2, 64, 8}}, {"5 rows d128 gqa", {5, 8, 1, 128, 40}},
                  {"13 rows d32 mha", {13, 6, 6, 32, 64}}});
  }
  void ropeCache() {
    QFETCH(int, dtype);
    QFETCH(QVector<int>, dims);
    REQUIRE_PLUGIN(p);
    const int rows = dims[0], heads = dims[1], kvHeads = dims[2], d = dims[3], numSlots = dims[4];
    const int qSize = heads * d, kvSize = kvHeads * d, width = qSize + 2 * kvSize;
    const std::vector<float> qkv = randomFloats(size_t(rows) * width, 6, -2, 2, dtype);
    std::vector<int32_t> pos, cacheSlots;
    for (int r = 0; r < rows; ++r) {
      pos.push_back((r * 997 + 13) % 4000);
      cacheSlots.push_back(r == 1 ? -1 : (r * 3 + 1) % numSlots);  // row 1: no cache write
    }
    std::vector<float> invFreq;
    for (int i = 0; i < d / 2; ++i) invFreq.push_back(float(1 / std::pow(10000.0, 2.0 * i / d)));
    std::vector<float> q(size_t(rows) * qSize), kc(size_t(numSlots) * kvSize), vc(kc.size());
    LwbCudaKernelTest t{"rope_cache", dtype, {rows, heads, kvHeads, d, numSlots}, {},
                        {qkv.data(), pos.data(), cacheSlots.data(), invFreq.data()}, {q.data(), kc.data(), vc.data()}};
    run(p, t);
    auto rotated = [&](int r, int col0, int i) {  // element i of the head starting at col0
      const int half = d / 2, j = i % half;
      const double angle = double(pos[size_t(r)]) * invFreq[size_t(j)];
      const double a = qkv[size_t(r) * width + col0 + j], b = qkv[size_t(r) * width + col0 + j + half];
      return i < half ? a * std::cos(angle) - b * std::sin(angle) : b * std::cos(angle) + a * std::sin(angle);
    };
    std::vector<double> refQ(q.size());
    for (int r = 0; r < rows; ++r)
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < d; ++i) refQ[size_t(r) * qSize + h * d + i] = rotated(r, h * d, i);
    compare(q, refQ, 1e-5, 1e-5, "q");
    std::vector<bool> written(size_t(numSlots), false);
    for (int r = 0; r < rows; ++r) {
      if (cacheSlots[size_t(r)] < 0) continue;
      const size_t s = size_t(cacheSlots[size_t(r)]);
      written[s] = true;
      for (int h = 0; h < kvHeads; ++h)
        for (int i = 0; i < d; ++i) {
          const double k = rotated(r, qSize + h * d, i), v = qkv[size_t(r) * width + qSize + kvSize + h * d + i];
          QVERIFY(std::fabs(kc[s * kvSize + h * d + i] - k) <= 1e-4 + epsOf(dtype) * std::fabs(k));
          QCOMPARE(vc[s * kvSize + h * d + i], float(v));
        }
    }
    for (int s = 0; s < numSlots; ++s)
      if (!written[size_t(s)]) QVERIFY2(std::isnan(kc[size_t(s) * kvSize]) && std::isnan(vc[size_t(s) * kvSize]),
                                        "a slot no row maps to was written");
  }

  void attention_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QVector<int>>("dims");
    // heads, kvHeads, headDim, blockSize, partitionSize, then (numCached, numTokens) pairs
    addDtypeRows({{"decode short", {4, 2, 64, 16, 512, 0, 1, 16, 1, 40, 1}},
                  {"decode split", {4, 2, 64, 16, 64, 300, 1, 63, 1, 64, 1, 1000, 1}},
                  {"prefill", {8, 1, 128, 8, 512, 0, 37, 0, 1}},
                  {"chunk after cache", {6, 6, 32, 16, 512, 50, 20, 3, 29}},
                  {"mixed", {4, 2, 64, 16, 128, 0, 33, 200, 1, 17, 48, 700, 1, 5, 5}},
                  {"d256 group 8", {8, 1, 256, 32, 256, 90, 9, 600, 1}}});
  }
  void attention() {
    QFETCH(int, dtype);
    QFETCH(QVector<int>, dims);
    REQUIRE_PLUGIN(p);
    const int heads = dims[0], kvHeads = dims[1], d = dims[2], bs = dims[3], partition = dims[4];
    std::vector<int32_t> seqInfo(dims.begin() + 5, dims.end());
    const int numSeqs = int(seqInfo.size() / 2);
    int maxBlocks = 0, rows = 0;
    for (int s = 0; s < numSeqs; ++s) {
      maxBlocks = std::max(maxBlocks, (seqInfo[2 * s] + seqInfo[2 * s + 1] + bs - 1) / bs);
      rows += seqInfo[2 * s + 1];
    }
    // Every seq gets its own blocks, interleaved and shuffled across the pool.
    const int numBlocks = numSeqs * maxBlocks + 3;
    std::vector<int32_t> perm(static_cast<size_t>(numBlocks));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(9));
    std::vector<int32_t> tables(size_t(numSeqs) * maxBlocks);
    for (size_t i = 0; i < tables.size(); ++i) tables[i] = perm[i];
    const int kvSize = kvHeads * d, qSize = heads * d;
    const std::vector<float> q = randomFloats(size_t(rows) * qSize, 10, -2, 2);
    const std::vector<float> kc = randomFloats(size_t(numBlocks) * bs * kvSize, 11, -2, 2, dtype);
    const std::vector<float> vc = randomFloats(kc.size(), 12, -1, 1, dtype);
    std::vector<float> out(size_t(rows) * qSize);
    LwbCudaKernelTest t{"attention", dtype, {heads, kvHeads, d, bs, numBlocks, numSeqs, maxBlocks},
                        {double(partition)}, {q.data(), kc.data(), vc.data(), seqInfo.data(), tables.data()},
                        {out.data()}};
    run(p, t);
    std::vector<double> ref(out.size());
    int row = 0;
    for (int s = 0; s < numSeqs; ++s)
      for (int i = 0; i < seqInfo[2 * s + 1]; ++i, ++row) {
        const int pos = seqInfo[2 * s] + i;
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
    compare(out, ref, 2 * epsOf(dtype), 2e-3, "attention");
  }

  void gemm_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QVector<int>>("dims");  // rows, k, n, f32 out
    addDtypeRows({{"1x64x64", {1, 64, 64, 0}}, {"7x384x1000 f32", {7, 384, 1000, 1}},
                  {"33x2048x517", {33, 2048, 517, 0}}, {"129x777x96 f32", {129, 777, 96, 1}}});
  }
  void gemm() {
    QFETCH(int, dtype);
    QFETCH(QVector<int>, dims);
    REQUIRE_PLUGIN(p);
    const int rows = dims[0], k = dims[1], n = dims[2], f32 = dims[3];
    const std::vector<float> x = randomFloats(size_t(rows) * k, 13, -1, 1, dtype);
    const std::vector<float> w = randomFloats(size_t(n) * k, 14, -1, 1, dtype);
    std::vector<float> y(size_t(rows) * n);
    LwbCudaKernelTest t{"gemm", dtype, {rows, k, n, f32}, {}, {x.data(), w.data()}, {y.data()}};
    run(p, t);
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
    compare(y, ref, f32 ? 1e-5 : epsOf(dtype), 1e-5 * absSum, "y");
  }
};

QTEST_GUILESS_MAIN(TestCudaKernels)
#include "tst_cuda_kernels.moc"
