// Quantized CPU kernels: every ISA's Q8_0·Q8_0 and Q4_K·Q8_K dot products (and those of
// Q4_0, Q4_1, Q5_0, Q5_1 · Q8_0 and Q5_K, Q6_K · Q8_K on random blocks) against the
// float64 dot of the dequantized blocks; AVX2 and AVX-512 give identical bits; the
// quantized GEMM gives each output exactly the dot of its weight row and its quantized
// input row, whatever the batch size and thread count (batch invariance).
#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>

#include "common/random_blocks.h"
#include "engine/common/dtype.h"
#include "engine/exec/cpu/gemm_quant.h"
#include "engine/exec/cpu/kernels.h"
#include "engine/exec/cpu/quant_kernels.h"
#include "engine/model/quant.h"

using namespace lwb;
using lwb::test::randomBlocks;

namespace {

std::vector<float> gaussian(size_t n, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> x(n);
  for (float& v : x) v = dist(rng);
  return x;
}

template <typename Block>
std::vector<Block> quantized(GgmlType t, const std::vector<float>& x) {
  std::vector<Block> out(x.size() / size_t(ggmlBlockSize(t)));
  quantizeRow(t, x.data(), out.data(), int64_t(x.size()));
  return out;
}

std::vector<double> dequantized(GgmlType t, const void* blocks, size_t n) {
  std::vector<float> f(n);
  dequantizeRow(t, blocks, f.data(), int64_t(n));
  return {f.begin(), f.end()};
}

// |computed − exact| against Σ|w·x|: float accumulation of exact integer block sums.
void checkDot(float got, const std::vector<double>& w, const std::vector<double>& x, const char* what) {
  double exact = 0, scale = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    exact += w[i] * x[i];
    scale += std::fabs(w[i] * x[i]);
  }
  QVERIFY2(std::fabs(got - exact) <= 2e-6 * scale + 1e-30,
           qPrintable(QString("%1: %2 vs exact %3 (scale %4)").arg(what).arg(got).arg(exact).arg(scale)));
}

// The GGUF types beyond Q8_0/Q4_K: each ISA's dot on random blocks against the float64
// dot of the dequantized blocks; `Dot` picks the kernel out of a table.
template <typename Block, typename Act>
void checkOtherType(GgmlType type, GgmlType actType, float (*QuantKernels::*dot)(const Block*, const Act*, int)) {
  std::mt19937 rng(21);
  for (int nb : {1, 2, 9}) {
    const int n = nb * ggmlBlockSize(type);
    const auto w = randomBlocks<Block>(size_t(nb), rng, 0.01f);
    const std::vector<float> x = gaussian(size_t(n), rng);
    std::vector<Act> xq(size_t(n / ggmlBlockSize(actType)));
    quantizeRow(actType, x.data(), xq.data(), n);
    const auto wd = dequantized(type, w.data(), size_t(n)), xd = dequantized(actType, xq.data(), size_t(n));
    std::vector<float> results;
    for (Isa isa : supportedIsas()) {
      const QuantKernels& qk = quantKernels(isa);
      QVERIFY2(qk.*dot != nullptr, isaName(isa));
      results.push_back((qk.*dot)(w.data(), xq.data(), nb));
      checkDot(results.back(), wd, xd, qPrintable(QString::fromStdString(ggmlTypeName(type) + " " + isaName(isa))));
    }
    if (isaSupported(Isa::Avx512)) QCOMPARE(results[size_t(Isa::Avx512)], results[size_t(Isa::Avx2)]);
  }
}

}  // namespace

class TestQuantKernels : public QObject {
  Q_OBJECT

 private slots:
  void dotsMatchTheDequantizedFloat64Dot() {
    std::mt19937 rng(11);
    for (Isa isa : supportedIsas()) {
      const QuantKernels& qk = quantKernels(isa);
      for (int nb : {1, 3, 8, 17}) {
        const std::vector<float> w = gaussian(size_t(nb) * 256, rng, 0.05f), x = gaussian(size_t(nb) * 256, rng);
        auto w8 = quantized<BlockQ8_0>(GgmlType::Q8_0, w);
        w8[0].qs[3] = -128;  // files may hold it; the kernels must not rely on ±127
        const auto x8 = quantized<BlockQ8_0>(GgmlType::Q8_0, x);
        checkDot(qk.dotQ8_0(w8.data(), x8.data(), nb * 8), dequantized(GgmlType::Q8_0, w8.data(), w.size()),
                 dequantized(GgmlType::Q8_0, x8.data(), x.size()), isaName(isa));
        const auto w4 = quantized<BlockQ4_K>(GgmlType::Q4_K, w);
        const auto xk = quantized<BlockQ8_K>(GgmlType::Q8_K, x);
        checkDot(qk.dotQ4_K(w4.data(), xk.data(), nb), dequantized(GgmlType::Q4_K, w4.data(), w.size()),
                 dequantized(GgmlType::Q8_K, xk.data(), x.size()), isaName(isa));
      }
    }
  }

  void otherGgufTypesMatchTheDequantizedFloat64Dot() {
    checkOtherType<BlockQ4_0, BlockQ8_0>(GgmlType::Q4_0, GgmlType::Q8_0, &QuantKernels::dotQ4_0);
    checkOtherType<BlockQ4_1, BlockQ8_0>(GgmlType::Q4_1, GgmlType::Q8_0, &QuantKernels::dotQ4_1);
    checkOtherType<BlockQ5_0, BlockQ8_0>(GgmlType::Q5_0, GgmlType::Q8_0, &QuantKernels::dotQ5_0);
    checkOtherType<BlockQ5_1, BlockQ8_0>(GgmlType::Q5_1, GgmlType::Q8_0, &QuantKernels::dotQ5_1);
    checkOtherType<BlockQ5_K, BlockQ8_K>(GgmlType::Q5_K, GgmlType::Q8_K, &QuantKernels::dotQ5_K);
    checkOtherType<BlockQ6_K, BlockQ8_K>(GgmlType::Q6_K, GgmlType::Q8_K, &QuantKernels::dotQ6_K);
  }

  void simdIsasGiveIdenticalBits() {
    if (!isaSupported(Isa::Avx512)) QSKIP("no AVX-512 on this CPU");
    const QuantKernels &a = quantKernels(Isa::Avx2), &b = quantKernels(Isa::Avx512);
    std::mt19937 rng(12);
    for (int trial = 0; trial < 20; ++trial) {
      const std::vector<float> w = gaussian(2048, rng), x = gaussian(2048, rng);
      const auto w8 = quantized<BlockQ8_0>(GgmlType::Q8_0, w), x8 = quantized<BlockQ8_0>(GgmlType::Q8_0, x);
      const auto w4 = quantized<BlockQ4_K>(GgmlType::Q4_K, w);
      const auto xk = quantized<BlockQ8_K>(GgmlType::Q8_K, x);
      QCOMPARE(a.dotQ8_0(w8.data(), x8.data(), 64), b.dotQ8_0(w8.data(), x8.data(), 64));
      QCOMPARE(a.dotQ4_K(w4.data(), xk.data(), 8), b.dotQ4_K(w4.data(), xk.data(), 8));
      QCOMPARE(a.dotQ4_K(w4.data(), xk.data(), 7), b.dotQ4_K(w4.data(), xk.data(), 7));  // odd: a lone last block
      const auto w40 = quantized<BlockQ4_0>(GgmlType::Q4_0, w);
      QCOMPARE(a.dotQ4_0(w40.data(), x8.data(), 64), b.dotQ4_0(w40.data(), x8.data(), 64));
    }
  }

  // The prefill tiles give every output the dot product's exact bits, on every ISA.
  void tilesEqualTheDotProducts() {
    std::mt19937 rng(14);
    const int K = 1024;
    std::vector<std::vector<BlockQ8_0>> w8, x8;
    std::vector<std::vector<BlockQ4_K>> w4;
    std::vector<std::vector<BlockQ8_K>> xk;
    for (int c = 0; c < kQuantTileMax; ++c) {
      const std::vector<float> w = gaussian(K, rng, 0.05f);
      w8.push_back(quantized<BlockQ8_0>(GgmlType::Q8_0, w));
      w4.push_back(quantized<BlockQ4_K>(GgmlType::Q4_K, w));
    }
    w8[0][5].qs[7] = -128;
    for (int r = 0; r < kQuantTileMax; ++r) {
      const std::vector<float> x = gaussian(K, rng);
      x8.push_back(quantized<BlockQ8_0>(GgmlType::Q8_0, x));
      xk.push_back(quantized<BlockQ8_K>(GgmlType::Q8_K, x));
    }
    for (Isa isa : supportedIsas()) {
      const QuantKernels& qk = quantKernels(isa);
      const BlockQ8_0* w8p[kQuantTileMax];
      const BlockQ4_K* w4p[kQuantTileMax];
      const BlockQ8_0* x8p[kQuantTileMax];
      const BlockQ8_K* xkp[kQuantTileMax];
      for (int c = 0; c < kQuantTileMax; ++c) w8p[c] = w8[size_t(c)].data(), w4p[c] = w4[size_t(c)].data();
      for (int r = 0; r < kQuantTileMax; ++r) x8p[r] = x8[size_t(r)].data(), xkp[r] = xk[size_t(r)].data();
      const size_t ldy = kQuantTileMax + 1;
      std::vector<float> y8(kQuantTileMax * ldy, NAN), y4(kQuantTileMax * ldy, NAN);
      qk.tileQ8_0(w8p, x8p, K / 32, y8.data(), ldy);
      qk.tileQ4_K(w4p, xkp, K / 256, y4.data(), ldy);
      for (int r = 0; r < qk.tileDimsQ8_0.rows; ++r)
        for (int c = 0; c < qk.tileDimsQ8_0.cols; ++c) {
          const float d8 = qk.dotQ8_0(w8p[c], x8p[r], K / 32);
          QVERIFY2(std::memcmp(&d8, &y8[size_t(r) * ldy + size_t(c)], 4) == 0, isaName(isa));
        }
      for (int r = 0; r < kQuantTileRows; ++r)
        for (int c = 0; c < kQuantTileCols; ++c) {
          const float d4 = qk.dotQ4_K(w4p[c], xkp[r], K / 256);
          QVERIFY2(std::memcmp(&d4, &y4[size_t(r) * ldy + size_t(c)], 4) == 0, isaName(isa));
        }
    }
  }

  void activationQuantizersGiveQuantizeRowsBytes() {
    std::mt19937 rng(15);
    std::vector<float> x = gaussian(1024, rng, 3.0f);
    x[7] = 0.0f;
    std::fill(x.begin() + 256, x.begin() + 512, 0.0f);  // an all-zero block of each type
    std::vector<BlockQ8_0> want8(32), got8(32);
    std::vector<BlockQ8_K> wantK(4), gotK(4);
    quantizeRow(GgmlType::Q8_0, x.data(), want8.data(), 1024);
    quantizeRow(GgmlType::Q8_K, x.data(), wantK.data(), 1024);
    for (Isa isa : supportedIsas()) {
      quantKernels(isa).quantizeQ8_0(x.data(), got8.data(), 1024);
      quantKernels(isa).quantizeQ8_K(x.data(), gotK.data(), 1024);
      QVERIFY2(std::memcmp(want8.data(), got8.data(), sizeof(BlockQ8_0) * 32) == 0, isaName(isa));
      QVERIFY2(std::memcmp(wantK.data(), gotK.data(), sizeof(BlockQ8_K) * 4) == 0, isaName(isa));
    }
  }

  void quantTypeFallsBackForShortRows() {
    QCOMPARE(quantTypeFor(GgmlType::Q4_K, 512), GgmlType::Q4_K);
    QCOMPARE(quantTypeFor(GgmlType::Q4_K, 288), GgmlType::Q8_0);
    QCOMPARE(quantTypeFor(GgmlType::Q8_0, 288), GgmlType::Q8_0);
    QCOMPARE(quantTypeFor(GgmlType::Q8_0, 100), GgmlType::F32);
  }

  // Each output is the dot of its weight row with its own quantized input row, bit for
  // bit, for any batch size and thread count.
  void gemmIsBatchInvariant_data() {
    QTest::addColumn<int>("type");
    QTest::newRow("Q8_0") << int(GgmlType::Q8_0);
    QTest::newRow("Q4_K") << int(GgmlType::Q4_K);
  }
  void gemmIsBatchInvariant() {
    QFETCH(int, type);
    const GgmlType t = GgmlType(type);
    const int N = 77, K = 512, T = 70;
    std::mt19937 rng(13);
    std::vector<uint16_t> wbf(size_t(N) * K);
    const std::vector<float> wf = gaussian(wbf.size(), rng, 0.05f);
    for (size_t i = 0; i < wbf.size(); ++i) wbf[i] = floatToBf16(wf[i]);
    const std::vector<float> x = gaussian(size_t(T) * K, rng);
    const Isa isa = detectIsa();
    const QuantKernels& qk = quantKernels(isa);
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      const PackedMatrix w = quantizeMatrix(pool, {wbf.data(), DType::BF16, N, K}, t);
      QVERIFY(w.isQuantized() && w.quantType() == t);
      QCOMPARE(w.bytes(), ggmlRowBytes(t, K) * N);
      for (int rows : {1, 5, T}) {
        std::vector<float> y(size_t(rows) * N, NAN);
        gemm(pool, cpuKernels(isa), x.data(), K, rows, {{&w, y.data(), size_t(N)}});
        for (int r = 0; r < rows; ++r) {
          std::vector<uint8_t> xq(ggmlRowBytes(t == GgmlType::Q4_K ? GgmlType::Q8_K : GgmlType::Q8_0, K));
          quantizeRow(t == GgmlType::Q4_K ? GgmlType::Q8_K : GgmlType::Q8_0, x.data() + size_t(r) * K, xq.data(), K);
          for (int n = 0; n < N; ++n) {
            const uint8_t* wrow = static_cast<const uint8_t*>(w.data()) + size_t(n) * ggmlRowBytes(t, K);
            const float want = t == GgmlType::Q4_K
                                   ? qk.dotQ4_K(reinterpret_cast<const BlockQ4_K*>(wrow),
                                                reinterpret_cast<const BlockQ8_K*>(xq.data()), K / 256)
                                   : qk.dotQ8_0(reinterpret_cast<const BlockQ8_0*>(wrow),
                                                reinterpret_cast<const BlockQ8_0*>(xq.data()), K / 32);
            if (std::memcmp(&want, &y[size_t(r) * N + size_t(n)], 4) != 0)
              QFAIL(qPrintable(QString("rows=%1 threads=%2 y[%3,%4]").arg(rows).arg(threads).arg(r).arg(n)));
          }
        }
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestQuantKernels)
#include "tst_quant_kernels.moc"
