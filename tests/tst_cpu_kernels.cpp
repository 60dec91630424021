// Each CPU kernel, for every ISA this machine supports, against a naive double version
// on random inputs of awkward sizes (K not a multiple of the SIMD width, odd N, T = 1..37),
// in every weight dtype (packed into panels), with NaN-poisoned outputs. Also: a row's GEMM result is
// bit-identical whatever the number of rows and threads (and the weightsStream hint), and
// the thread pool runs every task exactly once.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "engine/exec/cpu/attention.h"
#include "engine/exec/cpu/gemm.h"
#include "engine/exec/cpu/kernels.h"
#include "engine/exec/cpu/norm_rope.h"
#include "engine/exec/cpu/thread_pool.h"
#include "common/random_floats.h"

using namespace lwb;
using lwb::test::randomFloats;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Weights stored in `dtype`, plus their exact values as doubles.
struct TestWeights {
  std::vector<uint8_t> bytes;
  std::vector<double> values;
};

TestWeights makeWeights(size_t n, DType dtype, unsigned seed) {
  const std::vector<float> f = randomFloats(n, seed);
  TestWeights w;
  w.bytes.resize(n * dtypeSize(dtype));
  w.values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (dtype == DType::F32) {
      std::memcpy(&w.bytes[4 * i], &f[i], 4);
      w.values[i] = f[i];
    } else {
      const uint16_t h = dtype == DType::BF16 ? floatToBf16(f[i]) : floatToF16(f[i]);
      std::memcpy(&w.bytes[2 * i], &h, 2);
      w.values[i] = dtype == DType::BF16 ? bf16ToFloat(h) : f16ToFloat(h);
    }
  }
  return w;
}

std::vector<Isa> isas() { return supportedIsas(); }

}  // namespace

class TestCpuKernels : public QObject {
  Q_OBJECT

 private slots:
  void threadPoolRunsEveryTaskOnce();
  void gemmMatchesNaive();
  void gemmRowsAreBatchInvariant();
  void vectorOps();
  void rmsNormAndRope();
  void pagedAttentionMatchesNaive();
};

void TestCpuKernels::threadPoolRunsEveryTaskOnce() {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    QCOMPARE(pool.numThreads(), threads);
    for (int round = 0; round < 200; ++round) {
      const int n = round % 37;
      std::vector<std::atomic<int>> hits(size_t(n + 1));
      std::atomic<int> badThread{0};
      pool.parallelFor(n, [&](int i, int t) {
        hits[size_t(i)].fetch_add(1);
        if (t < 0 || t >= threads) badThread.fetch_add(1);
      });
      for (int i = 0; i < n; ++i) QCOMPARE(hits[size_t(i)].load(), 1);
      QCOMPARE(badThread.load(), 0);
    }
  }
  QVERIFY(ThreadPool(0).numThreads() >= 1);
}

void TestCpuKernels::gemmMatchesNaive() {
  ThreadPool pool(3);
  for (Isa isa : isas()) {
    const CpuKernels& kn = cpuKernels(isa);
    for (DType dtype : {DType::F32, DType::F16, DType::BF16})
      for (int T : {1, 2, 3, 5, 8, 14, 37})  // 8 and 14: the tall tiles of 16-bit weights
        for (int K : {1, 7, 16, 33, 100, 300})
          for (int N : {1, 3, 17, 40, 150}) {
            const TestWeights w = makeWeights(size_t(N) * size_t(K), dtype, unsigned(T * 1000 + K * 10 + N));
            const size_t ldx = size_t(K) + 3, ldy = size_t(N) + 2;
            const std::vector<float> x = randomFloats(size_t(T) * ldx, unsigned(K + N));
            std::vector<float> y(size_t(T) * ldy, kNaN);
            const PackedMatrix packed = packMatrix(pool, {w.bytes.data(), dtype, N, K});
            gemm(pool, kn, x.data(), ldx, T, {{&packed, y.data(), ldy}});
            // The AVX-512 BF16 level takes bf16 weights' activations rounded to bf16: the
            // reference rounds them too (the products of two bf16 values are exact in f32).
            const bool bf16x = isa == Isa::Avx512Bf16 && dtype == DType::BF16;
            for (int t = 0; t < T; ++t) {
              for (int n = 0; n < N; ++n) {
                double want = 0, mag = 0;
                for (int k = 0; k < K; ++k) {
                  const float xv = x[size_t(t) * ldx + size_t(k)];
                  const double xk = bf16x ? double(bf16ToFloat(floatToBf16(xv))) : double(xv);
                  want += xk * w.values[size_t(n) * size_t(K) + size_t(k)];
                  mag += std::fabs(xk * w.values[size_t(n) * size_t(K) + size_t(k)]);
                }
                const double got = y[size_t(t) * ldy + size_t(n)];
                // A sequential sum of K exact products: |error| <= K·2^-24·Σ|x·w| (γ_K bound).
                if (!(std::fabs(got - want) <= (K + 1) * 0x1p-24 * mag + 1e-30))
                  QFAIL(qPrintable(QString("%1 %2 T=%3 K=%4 N=%5 [%6,%7]: %8 vs %9").arg(isaName(isa))
                                       .arg(dtypeName(dtype).data()).arg(T).arg(K).arg(N).arg(t).arg(n).arg(got).arg(want)));
              }
              for (size_t c = size_t(N); c < ldy; ++c) QVERIFY(std::isnan(y[size_t(t) * ldy + c]));  // no stray writes
            }
          }
  }
}

// The same row computed in batches of 1..37 rows on 1..3 threads: identical bits, for
// every weight dtype, with K below and above one K block of the multi-row path.
void TestCpuKernels::gemmRowsAreBatchInvariant() {
  for (DType dtype : {DType::BF16, DType::F32, DType::F16})
    for (auto [K, N] : {std::pair{75, 53}, std::pair{600, 150}}) {
      const TestWeights w = makeWeights(size_t(N) * size_t(K), dtype, 5);
      const std::vector<float> x = randomFloats(37 * size_t(K), 6);
      ThreadPool one(1);
      const PackedMatrix packed = packMatrix(one, {w.bytes.data(), dtype, N, K});
      for (Isa isa : isas()) {
        const CpuKernels& kn = cpuKernels(isa);
        std::vector<float> alone(static_cast<size_t>(N));
        gemm(one, kn, x.data() + 36 * size_t(K), size_t(K), 1, {{&packed, alone.data(), size_t(N)}});
        for (int threads : {1, 2, 3}) {
          ThreadPool pool(threads);
          for (int T : {2, 5, 7, 8, 13, 16, 37}) {
            std::vector<float> y(size_t(T) * size_t(N), kNaN);
            const float* rows = x.data() + size_t(37 - T) * size_t(K);  // row 36 is the last one
            gemm(pool, kn, rows, size_t(K), T, {{&packed, y.data(), size_t(N)}});
            QVERIFY2(std::memcmp(y.data() + size_t(T - 1) * size_t(N), alone.data(), size_t(N) * sizeof(float)) == 0,
                     qPrintable(QString("%1 %2 K=%3: T=%4 threads=%5").arg(isaName(isa)).arg(dtypeName(dtype).data())
                                    .arg(K).arg(T).arg(threads)));
            // The weightsStream hint picks other prefetches, never other bits.
            std::vector<float> streamed(y.size(), kNaN);
            gemm(pool, kn, rows, size_t(K), T, {{&packed, streamed.data(), size_t(N)}}, true);
            QVERIFY2(std::memcmp(streamed.data(), y.data(), y.size() * sizeof(float)) == 0,
                     qPrintable(QString("%1 %2 K=%3: T=%4 threads=%5, weightsStream").arg(isaName(isa))
                                    .arg(dtypeName(dtype).data()).arg(K).arg(T).arg(threads)));
          }
        }
      }
    }
}

void TestCpuKernels::vectorOps() {
  for (Isa isa : isas()) {
    const CpuKernels& kn = cpuKernels(isa);
    for (int n : {1, 5, 8, 16, 31, 64, 77}) {
      const std::vector<float> a = randomFloats(size_t(n), unsigned(n)), b = randomFloats(size_t(n), unsigned(n) + 1);
      double dot = 0, mag = 0;
      for (int i = 0; i < n; ++i) dot += double(a[size_t(i)]) * b[size_t(i)], mag += std::fabs(double(a[size_t(i)]) * b[size_t(i)]);
      QVERIFY(std::fabs(kn.dot(a.data(), b.data(), n) - dot) <= 1e-6 * mag + 1e-9);

      std::vector<float> y = b;
      y.push_back(kNaN);  // sentinel past the end
      kn.axpy(0.75f, a.data(), y.data(), n);
      for (int i = 0; i < n; ++i) QVERIFY(std::fabs(y[size_t(i)] - (b[size_t(i)] + 0.75 * a[size_t(i)])) <= 1e-6);
      QVERIFY(std::isnan(y[size_t(n)]));

      std::vector<float> s = randomFloats(size_t(n), unsigned(n) + 2, -30.0f, 5.0f);
      const std::vector<float> s0 = s;
      const float sum = kn.expAndSum(s.data(), n, 5.0f);
      double want = 0;
      for (int i = 0; i < n; ++i) {
        const double e = std::exp(double(s0[size_t(i)] - 5.0f));  // the kernel subtracts in float
        want += e;
        QVERIFY2(std::fabs(s[size_t(i)] - e) <= 2e-7 * e + 1e-30, qPrintable(QString("%1 exp(%2)").arg(isaName(isa)).arg(s0[size_t(i)] - 5.0)));
      }
      QVERIFY(std::fabs(sum - want) <= 1e-6 * want);

      const std::vector<float> g = randomFloats(size_t(n), unsigned(n) + 3, -12.0f, 12.0f);
      std::vector<float> out(size_t(n) + 1, kNaN);
      kn.siluMul(g.data(), b.data(), out.data(), n);
      for (int i = 0; i < n; ++i) {
        const double gi = g[size_t(i)], want2 = gi / (1.0 + std::exp(-gi)) * b[size_t(i)];
        QVERIFY2(std::fabs(out[size_t(i)] - want2) <= 1e-6 * (std::fabs(gi) + 1), qPrintable(QString("%1 silu(%2)").arg(isaName(isa)).arg(gi)));
      }
      QVERIFY(std::isnan(out[size_t(n)]));
    }
  }
}

void TestCpuKernels::rmsNormAndRope() {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    const int n = 72;
    const TestWeights w = makeWeights(size_t(n), dtype, 11);
    const std::vector<float> x = randomFloats(size_t(n), 12, -3.0f, 3.0f);
    std::vector<float> y(size_t(n), kNaN);
    rmsNormRow(x.data(), {w.bytes.data(), dtype, n}, 1e-5f, y.data());
    double ss = 0;
    for (float v : x) ss += double(v) * v;
    const double inv = 1.0 / std::sqrt(ss / n + 1e-5);
    for (int i = 0; i < n; ++i) QVERIFY(std::fabs(y[size_t(i)] - x[size_t(i)] * inv * w.values[size_t(i)]) <= 1e-6 * 3);
    // Rows normed side by side (strided, through row pointers, in place) give each row's
    // bits alone, for every count around the group of kNormGroup.
    const int width = 77, ld = 80;
    const TestWeights wr = makeWeights(size_t(width), dtype, 14);
    const WeightVector wv{wr.bytes.data(), dtype, width};
    for (int rows : {1, 2, 3, 7, 8, 9, 15, 16, 19}) {
      const std::vector<float> xs = randomFloats(size_t(rows) * ld, unsigned(15 + rows), -40.0f, 40.0f);
      std::vector<float> alone(size_t(rows) * ld, kNaN), strided(alone.size(), kNaN), viaPointers(alone.size(), kNaN);
      for (int r = 0; r < rows; ++r) rmsNormRow(xs.data() + size_t(r) * ld, wv, 1e-6f, alone.data() + size_t(r) * ld);
      rmsNormRows(xs.data(), ld, rows, wv, 1e-6f, strided.data(), ld);
      std::vector<const float*> from;
      std::vector<float*> to;
      for (int r = rows - 1; r >= 0; --r) {  // any order of rows
        from.push_back(xs.data() + size_t(r) * ld);
        to.push_back(viaPointers.data() + size_t(r) * ld);
      }
      rmsNormRows(from.data(), to.data(), rows, wv, 1e-6f);
      std::vector<float> inPlace = xs;
      rmsNormRows(inPlace.data(), ld, rows, wv, 1e-6f, inPlace.data(), ld);
      for (int r = 0; r < rows; ++r) {
        const size_t o = size_t(r) * ld, bytes = size_t(width) * sizeof(float);
        const QString what = QString("%1 rows=%2 row %3").arg(dtypeName(dtype).data()).arg(rows).arg(r);
        QVERIFY2(std::memcmp(strided.data() + o, alone.data() + o, bytes) == 0, qPrintable(what + " strided"));
        QVERIFY2(std::memcmp(viaPointers.data() + o, alone.data() + o, bytes) == 0, qPrintable(what + " pointers"));
        QVERIFY2(std::memcmp(inPlace.data() + o, alone.data() + o, bytes) == 0, qPrintable(what + " in place"));
        QVERIFY2(std::isnan(strided[o + size_t(width)]), qPrintable(what + ": wrote past the row"));
      }
    }
  }
  // rotate_half: pairs (i, i + d/2), angle pos * invFreq[i].
  const int heads = 3, d = 24, pos = 37;
  std::vector<float> invFreq(size_t(d / 2));
  for (int i = 0; i < d / 2; ++i) invFreq[size_t(i)] = float(1.0 / std::pow(10000.0, 2.0 * i / d));
  std::vector<float> c(size_t(d / 2)), s(size_t(d / 2));
  ropeAngles(pos, invFreq, c.data(), s.data());
  const std::vector<float> v0 = randomFloats(size_t(heads * d), 13);
  std::vector<float> v = v0;
  applyRope(v.data(), heads, d, c.data(), s.data());
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < d / 2; ++i) {
      const double ang = double(pos) * double(invFreq[size_t(i)]);
      const double a = v0[size_t(h * d + i)], b = v0[size_t(h * d + i + d / 2)];
      QVERIFY(std::fabs(v[size_t(h * d + i)] - (a * std::cos(ang) - b * std::sin(ang))) <= 1e-5);
      QVERIFY(std::fabs(v[size_t(h * d + i + d / 2)] - (b * std::cos(ang) + a * std::sin(ang))) <= 1e-5);
    }
}

// Two sequences with shuffled block tables, block sizes 1/16/32, GQA 3:1, head dim 20.
void TestCpuKernels::pagedAttentionMatchesNaive() {
  // Head sizes that end inside a SIMD vector (20) or not (64, 80, 128), GQA groups of 1,
  // 3 and 8 (more than one register tile of heads), block sizes below, at and between
  // the SIMD widths (a block holds partial key chunks).
  struct Shape {
    int heads, kvHeads, d;
  };
  for (const Shape& sh : {Shape{6, 2, 20}, Shape{8, 1, 64}, Shape{3, 1, 80}, Shape{2, 2, 128}})
  for (int blockSize : {1, 16, 24, 32}) {
    const int heads = sh.heads, kvHeads = sh.kvHeads, d = sh.d, group = heads / kvHeads;
    const std::vector<int> lens{1, 45};  // positions 0..len-1 cached, last row queried
    const int blocksEach = (45 + blockSize - 1) / blockSize, numBlocks = 2 * blocksEach + 3;
    std::vector<int32_t> ids(static_cast<size_t>(numBlocks));
    for (int i = 0; i < numBlocks; ++i) ids[size_t(i)] = i;
    std::shuffle(ids.begin(), ids.end(), std::mt19937(unsigned(blockSize)));
    std::vector<std::vector<int32_t>> tables{{ids.begin(), ids.begin() + blocksEach}, {ids.begin() + blocksEach, ids.begin() + 2 * blocksEach}};
    const size_t kvSize = size_t(kvHeads * d), cacheSize = size_t(numBlocks * blockSize) * kvSize;
    std::vector<float> kc(cacheSize, kNaN), vc(cacheSize, kNaN);
    const AttentionShape shape{heads, kvHeads, d, blockSize};
    std::vector<std::vector<float>> keys(2), values(2);
    for (int sq = 0; sq < 2; ++sq) {
      keys[size_t(sq)] = randomFloats(size_t(lens[size_t(sq)]) * kvSize, unsigned(20 + sq), -2, 2);
      values[size_t(sq)] = randomFloats(size_t(lens[size_t(sq)]) * kvSize, unsigned(30 + sq));
      std::vector<RowPosition> rows;
      for (int p = 0; p < lens[size_t(sq)]; ++p) rows.push_back({tables[size_t(sq)].data(), p});
      writeKvCache(shape, rows, keys[size_t(sq)].data(), values[size_t(sq)].data(), {kc.data(), vc.data()});
    }
    const std::vector<RowPosition> queryRows{{tables[0].data(), lens[0] - 1}, {tables[1].data(), lens[1] - 1}, {tables[1].data(), 20}};
    const std::vector<int> rowSeq{0, 1, 1};
    const std::vector<float> q = randomFloats(3 * size_t(heads * d), 40, -2, 2);
    for (Isa isa : isas()) {
      ThreadPool pool(2);
      std::vector<std::vector<float>> scratch;
      std::vector<float> out(3 * size_t(heads * d), kNaN);
      pagedAttention(pool, cpuKernels(isa), shape, queryRows, q.data(), {kc.data(), vc.data()}, out.data(), scratch);
      for (size_t r = 0; r < 3; ++r)
        for (int h = 0; h < heads; ++h) {
          const auto& K = keys[size_t(rowSeq[r])];
          const auto& V = values[size_t(rowSeq[r])];
          const int n = queryRows[r].pos + 1, kvh = h / group;
          std::vector<double> sc(static_cast<size_t>(n));
          double mx = -1e300, sum = 0;
          for (int j = 0; j < n; ++j) {
            double dot = 0;
            for (int i = 0; i < d; ++i) dot += double(q[r * size_t(heads * d) + size_t(h * d + i)]) * K[size_t(j) * kvSize + size_t(kvh * d + i)];
            sc[size_t(j)] = dot / std::sqrt(double(d));
            mx = std::max(mx, sc[size_t(j)]);
          }
          for (double& e : sc) sum += (e = std::exp(e - mx));
          for (int i = 0; i < d; ++i) {
            double want = 0;
            for (int j = 0; j < n; ++j) want += sc[size_t(j)] / sum * V[size_t(j) * kvSize + size_t(kvh * d + i)];
            const float got = out[r * size_t(heads * d) + size_t(h * d + i)];
            QVERIFY2(std::fabs(got - want) <= 2e-6, qPrintable(QString("%1 d %7 block %2 row %3 head %4: %5 vs %6")
                                                                .arg(isaName(isa)).arg(blockSize).arg(r).arg(h).arg(got).arg(want).arg(d)));
          }
        }
    }
  }
}

QTEST_GUILESS_MAIN(TestCpuKernels)
#include "tst_cpu_kernels.moc"
