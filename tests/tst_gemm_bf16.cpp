// bf16 weights are packed in k pairs (layout in kernels.h, GemmArgs) and converted to f32
// by a shift or a mask, which is exact: a bf16 GEMM must give the same bits as the f32
// GEMM of the same bf16-valued weights, on every ISA but AVX-512 BF16, for odd and even K
// (the pad half of an odd K's last pair), across the K blocks of the multi-row path and
// for every row count of the few-row tiles. AVX-512 BF16 rounds the activations to bf16
// pairs (vdpbf16ps): the pairs must be floatToBf16's, and every row the same bits in every
// batch. Also the packed layout itself, element by element, and the arena the executor
// packs its weights into.
#include <QtTest>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>

#include "engine/exec/cpu/gemm.h"
#include "engine/exec/cpu/kernels.h"
#include "engine/exec/cpu/thread_pool.h"

using namespace lwb;

namespace {

// Random bf16 weights of mixed magnitudes, with zeros of both signs, subnormals and the
// largest finite values mixed in.
std::vector<uint16_t> randomBf16(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::uniform_int_distribution<int> special(0, 40), scale(-20, 20);
  const uint16_t specials[] = {0x0000, 0x8000, 0x0001, 0x807f, 0x7f7f, 0xff7f};
  std::vector<uint16_t> v(n);
  for (uint16_t& h : v) {
    const int s = special(rng);
    h = s < 6 ? specials[s] : floatToBf16(std::ldexp(dist(rng), scale(rng)));
  }
  return v;
}

std::vector<float> randomX(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i % 29 == 0 ? -0.0f : dist(rng);
  return v;
}

}  // namespace

class TestGemmBf16 : public QObject {
  Q_OBJECT

 private slots:
  void packedLayoutIsKPairs();
  void bf16EqualsF32BitForBit();
  void bf16LevelPairsAndBatchInvariance();
  void weightArenaPieces();
};

// Panel p, element (k, j) at (p * Kp + k / 2) * 32 + 2 * j + k % 2, Kp = ceil(K / 2); the
// columns past N and the pad half of an odd K's last pair are zero.
void TestGemmBf16::packedLayoutIsKPairs() {
  ThreadPool pool(2);
  for (int K : {1, 2, 5, 8, 33})
    for (int N : {1, 16, 21}) {
      std::vector<uint16_t> w(size_t(N) * size_t(K));
      for (size_t i = 0; i < w.size(); ++i) w[i] = uint16_t(i + 1);  // nonzero, all distinct
      const PackedMatrix m = packMatrix(pool, {w.data(), DType::BF16, N, K});
      const int panels = (N + kPanel - 1) / kPanel, Kp = (K + 1) / 2;
      QCOMPARE(m.bytes(), size_t(panels) * size_t(Kp) * 32 * sizeof(uint16_t));
      const uint16_t* p = static_cast<const uint16_t*>(m.data());
      for (int panel = 0; panel < panels; ++panel)
        for (int k = 0; k < 2 * Kp; ++k)
          for (int j = 0; j < kPanel; ++j) {
            const int n = panel * kPanel + j;
            const uint16_t want = n < N && k < K ? w[size_t(n) * size_t(K) + size_t(k)] : uint16_t(0);
            const size_t at = (size_t(panel) * size_t(Kp) + size_t(k / 2)) * 32 + 2 * size_t(j) + size_t(k % 2);
            QVERIFY2(p[at] == want, qPrintable(QString("K=%1 N=%2 panel %3 (k %4, j %5)").arg(K).arg(N).arg(panel).arg(k).arg(j)));
          }
    }
}

void TestGemmBf16::bf16EqualsF32BitForBit() {
  ThreadPool pool(2);
  std::vector<int> rowCounts;
  for (int T = 1; T <= 17; ++T) rowCounts.push_back(T);
  rowCounts.push_back(64);
  for (int K : {1, 2, 7, 64, 129, 256, 301})  // odd and even; 129 and 301 cross K blocks
    for (int N : {19, 150}) {
      const std::vector<uint16_t> wb = randomBf16(size_t(N) * size_t(K), unsigned(K * 7 + N));
      std::vector<float> wf(wb.size());
      for (size_t i = 0; i < wb.size(); ++i) wf[i] = bf16ToFloat(wb[i]);
      const PackedMatrix pb = packMatrix(pool, {wb.data(), DType::BF16, N, K});
      const PackedMatrix pf = packMatrix(pool, {wf.data(), DType::F32, N, K});
      const size_t ldx = size_t(K) + 1, ldy = size_t(N) + 3;
      const std::vector<float> x = randomX(64 * ldx, unsigned(K + N));
      for (Isa isa : supportedIsas()) {
        if (isa == Isa::Avx512Bf16) continue;  // rounds the activations: bf16LevelPairsAndBatchInvariance
        const CpuKernels& kn = cpuKernels(isa);
        for (int T : rowCounts) {
          std::vector<float> yb(size_t(T) * ldy, std::numeric_limits<float>::quiet_NaN()), yf = yb;
          gemm(pool, kn, x.data(), ldx, T, {{&pb, yb.data(), ldy}});
          gemm(pool, kn, x.data(), ldx, T, {{&pf, yf.data(), ldy}});
          for (int t = 0; t < T; ++t)
            QVERIFY2(std::memcmp(yb.data() + size_t(t) * ldy, yf.data() + size_t(t) * ldy, size_t(N) * sizeof(float)) == 0,
                     qPrintable(QString("%1 K=%2 N=%3 T=%4 row %5").arg(isaName(isa)).arg(K).arg(N).arg(T).arg(t)));
        }
      }
    }
}

void TestGemmBf16::bf16LevelPairsAndBatchInvariance() {
  if (!isaSupported(Isa::Avx512Bf16)) QSKIP("this CPU has no AVX512_BF16");
  const CpuKernels& kn = cpuKernels(Isa::Avx512Bf16);
  QVERIFY(kn.bf16Pairs != nullptr);
  // The pairs: floatToBf16 of each value, ties to even, NaN kept quiet, infinities,
  // subnormals and both zeros as they are; the pad half of an odd K zero.
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.5f, 1.00390625f, 1.01171875f, 3.0e38f, -3.4e38f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                            -1e-40f, 65504.0f, 1e-20f};
  for (int K : {1, 2, 31, 32, 33, 64, 95, 301}) {
    std::vector<float> x = randomX(size_t(K), unsigned(K));
    for (size_t i = 0; i < x.size(); ++i)
      if (i % 3 == 0) x[i] = specials[(i / 3) % std::size(specials)];
    std::vector<uint32_t> pairs(size_t(K + 1) / 2, 0xdeadbeefu);
    kn.bf16Pairs(x.data(), K, pairs.data());
    for (int i = 0; i < (K + 1) / 2; ++i) {
      const uint32_t want = uint32_t(floatToBf16(x[size_t(2 * i)])) |
                            (2 * i + 1 < K ? uint32_t(floatToBf16(x[size_t(2 * i + 1)])) << 16 : 0u);
      QVERIFY2(pairs[size_t(i)] == want, qPrintable(QString("K=%1 pair %2: %3, want %4").arg(K).arg(i)
                                                        .arg(pairs[size_t(i)], 8, 16).arg(want, 8, 16)));
    }
  }
  // Every row the same bits whatever the batch and the thread count (the tiles of 1..6
  // rows, one row's 8-panel tile, the prefetching ones), odd and even K.
  for (int K : {1, 7, 64, 301})
    for (int N : {19, 150}) {
      const std::vector<uint16_t> wb = randomBf16(size_t(N) * size_t(K), unsigned(K * 5 + N));
      const size_t ldx = size_t(K) + 1, ldy = size_t(N) + 3;
      const std::vector<float> x = randomX(64 * ldx, unsigned(K * 3 + N));
      for (int threads : {1, 2}) {
        ThreadPool pool(threads);
        const PackedMatrix pb = packMatrix(pool, {wb.data(), DType::BF16, N, K});
        std::vector<float> alone(64 * ldy);
        for (int t = 0; t < 64; ++t)
          gemm(pool, kn, x.data() + size_t(t) * ldx, ldx, 1, {{&pb, alone.data() + size_t(t) * ldy, ldy}});
        for (int T : {2, 5, 6, 7, 13, 17, 64}) {
          std::vector<float> y(size_t(T) * ldy, std::numeric_limits<float>::quiet_NaN());
          gemm(pool, kn, x.data(), ldx, T, {{&pb, y.data(), ldy}});
          for (int t = 0; t < T; ++t)
            QVERIFY2(std::memcmp(y.data() + size_t(t) * ldy, alone.data() + size_t(t) * ldy, size_t(N) * sizeof(float)) == 0,
                     qPrintable(QString("K=%1 N=%2 T=%3 threads %4 row %5").arg(K).arg(N).arg(T).arg(threads).arg(t)));
        }
      }
    }
}

// The executor packs into a WeightArena: pieces are 64-byte aligned and follow each other
// in a chunk that starts on a 2 MiB boundary (so that THP can back it with huge pages), a
// piece larger than a chunk gets a chunk of its own whose tail later pieces use, every
// piece stays valid after the arena is gone (under ASan a freed chunk would be reported),
// and a matrix packed there holds the same bytes as one packed on its own.
void TestGemmBf16::weightArenaPieces() {
  const size_t chunk = size_t(4) << 20, huge = size_t(2) << 20;
  const auto address = [](const std::shared_ptr<uint8_t>& p) { return reinterpret_cast<uintptr_t>(p.get()); };
  std::shared_ptr<uint8_t> a, b, big, c;
  {
    WeightArena arena(chunk);
    a = arena.allocate(100, "test");
    b = arena.allocate(1, "test");
    QCOMPARE(address(a) % huge, uintptr_t(0));
    QCOMPARE(address(b), address(a) + 128);  // 100 bytes rounded up to 64
    big = arena.allocate(chunk + 1, "test");
    QCOMPARE(address(big) % huge, uintptr_t(0));
    QVERIFY(address(big) >= address(a) + chunk || address(big) + chunk + 1 <= address(a));  // not in a's chunk
    c = arena.allocate(64, "test");
    QCOMPARE(address(c), address(big) + chunk + 64);  // in the big chunk's tail (6 MiB)
  }
  std::memset(a.get(), 1, 100);
  std::memset(b.get(), 2, 1);
  std::memset(big.get(), 3, chunk + 1);
  std::memset(c.get(), 4, 64);
  QCOMPARE(int(a.get()[99]), 1);
  QCOMPARE(int(big.get()[chunk]), 3);
  QCOMPARE(int(c.get()[63]), 4);

  ThreadPool pool(2);
  WeightArena arena;
  const int N = 37, K = 29;
  const std::vector<uint16_t> w = randomBf16(size_t(N) * size_t(K), 11);
  const PackedMatrix alone = packMatrix(pool, {w.data(), DType::BF16, N, K});
  const PackedMatrix first = packMatrix(pool, {w.data(), DType::BF16, N, K}, &arena);
  const PackedMatrix second = packMatrix(pool, {w.data(), DType::BF16, N, K}, &arena);
  for (const PackedMatrix* m : {&first, &second}) {
    QCOMPARE(m->bytes(), alone.bytes());
    QCOMPARE(reinterpret_cast<uintptr_t>(m->data()) % 64, uintptr_t(0));
    QVERIFY(std::memcmp(m->data(), alone.data(), alone.bytes()) == 0);
  }
  QCOMPARE(static_cast<const uint8_t*>(second.data()) - static_cast<const uint8_t*>(first.data()),
           std::ptrdiff_t((alone.bytes() + 63) / 64 * 64));
}

QTEST_GUILESS_MAIN(TestGemmBf16)
#include "tst_gemm_bf16.moc"
