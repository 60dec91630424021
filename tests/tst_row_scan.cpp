// The packed row scans of the sampler (engine/sample/row_scan.h) against plain loops, on
// rows with NaN, infinities and ties, of lengths that are and are not multiples of the
// vector widths: whichever path the CPU takes (AVX-512 or the portable loops), the
// results must be the plain loops' exactly.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "engine/sample/row_scan.h"

using namespace lwb;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// N(0, 3) values rounded to quarters (many ties), with NaN, -inf and a late maximum.
std::vector<float> awkwardRow(unsigned seed, int n) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 3.0f);
  std::vector<float> z(static_cast<size_t>(n));
  for (float& v : z) v = std::round(d(rng) * 4.0f) / 4.0f;
  for (int i = 0; i < n / 50; ++i) z[rng() % unsigned(n)] = kNaN;
  for (int i = 0; i < n / 70; ++i) z[rng() % unsigned(n)] = -kInf;
  return z;
}

float plainMax(const std::vector<float>& z) {
  float m = -kInf;
  for (float v : z) m = v > m ? v : m;
  return m;
}

int plainArgmax(const std::vector<float>& z) {
  const float m = plainMax(z);
  for (size_t i = 0; i < z.size(); ++i)
    if (z[i] == m) return int(i);
  return 0;
}

}  // namespace

class TestRowScan : public QObject {
  Q_OBJECT
 private slots:
  void scansEqualPlainLoops_data() {
    QTest::addColumn<int>("n");
    for (int n : {1, 15, 16, 17, 31, 33, 64, 1000, 1024, 4097, 151936})
      QTest::newRow(qPrintable(QString("n=%1").arg(n))) << n;
  }
  void scansEqualPlainLoops() {
    QFETCH(int, n);
    for (unsigned seed = 0; seed < 4; ++seed) {
      std::vector<float> z = awkwardRow(seed, n);
      if (seed == 1) z[size_t(n - 1)] = 50.0f;  // the maximum in the tail lanes
      QCOMPARE(rowMax(z.data(), n), plainMax(z));
      QCOMPARE(rowArgmax(z.data(), n), plainArgmax(z));
      const float floor = seed == 2 ? 4.0f : 0.5f;
      int want = 0;
      std::vector<int> wantIds;
      for (int i = 0; i < n; ++i)
        if (z[size_t(i)] >= floor) ++want, wantIds.push_back(i);
      QCOMPARE(countAtLeast(z.data(), n, floor), want);
      // A gather of [begin, end) with the slack the contract asks for, poisoned past it.
      const int begin = n / 3, end = n;
      std::vector<int> out(static_cast<size_t>(end - begin + kScanLanes), -7);
      const int count = gatherAtLeast(z.data(), begin, end, floor, out.data());
      std::vector<int> wantRange;
      for (int id : wantIds)
        if (id >= begin) wantRange.push_back(id);
      QCOMPARE(std::vector<int>(out.begin(), out.begin() + count), wantRange);
      std::vector<float> scaled = z, plainScaled = z;
      for (float& v : plainScaled) v *= 0.7f;
      const float scaledMax = scaleRowMax(scaled.data(), n, 0.7f);
      QCOMPARE(scaledMax, plainMax(plainScaled));
      for (int i = 0; i < n; ++i)
        QVERIFY(std::memcmp(&scaled[size_t(i)], &plainScaled[size_t(i)], sizeof(float)) == 0);
    }
  }

  void allNaNOrNegativeInfinity() {
    std::vector<float> nan(40, kNaN), negInf(40, -kInf);
    QCOMPARE(rowMax(nan.data(), 40), -kInf);
    QCOMPARE(rowArgmax(nan.data(), 40), 0);
    QCOMPARE(rowArgmax(negInf.data(), 40), 0);
    QCOMPARE(countAtLeast(nan.data(), 40, -kInf), 0);
  }

  void equalMasksMarkAndCountTheValue() {
    std::mt19937 rng(3);
    const int numBlocks = 4748;  // 151,936 / 32
    std::vector<uint16_t> v(static_cast<size_t>(numBlocks) * 32);
    for (uint16_t& x : v) x = uint16_t(rng() % 40);
    std::vector<uint32_t> masks(static_cast<size_t>(numBlocks));
    for (uint16_t value : {uint16_t(0), uint16_t(17), uint16_t(39), uint16_t(1024)}) {
      const int count = equalMasks(v.data(), numBlocks, value, masks.data());
      int want = 0;
      for (int k = 0; k < numBlocks; ++k) {
        uint32_t m = 0;
        for (int i = 0; i < 32; ++i) m |= uint32_t(v[size_t(k * 32 + i)] == value) << i;
        QCOMPARE(masks[size_t(k)], m);
        want += std::popcount(m);
      }
      QCOMPARE(count, want);
    }
  }
};

QTEST_GUILESS_MAIN(TestRowScan)
#include "tst_row_scan.moc"
