// Block formats: dequantization of every type equals a per-element reference written
// from the format's specification (bit-exact, random blocks, odd block counts), and the
// quantizers (Q8_0, Q4_0, Q4_K, Q8_K) round-trip within their format's resolution.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>

#include "engine/common/dtype.h"
#include "engine/common/error.h"
#include "engine/model/quant.h"

using namespace lwb;

namespace {

uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
float half(const uint8_t* p) { return f16ToFloat(le16(p)); }  // dtype.cpp's independent conversion

// Element i of a row, read straight off the bytes as the GGUF/ggml layout describes.
float refLegacy(GgmlType t, const uint8_t* row, int64_t i) {
  const int64_t b = i / 32, j = i % 32;
  const uint8_t* blk = row + b * int64_t(ggmlBlockBytes(t));
  const bool hasMin = t == GgmlType::Q4_1 || t == GgmlType::Q5_1;
  const uint8_t* qh = blk + (hasMin ? 4 : 2);
  if (t == GgmlType::Q8_0) return float(int8_t(blk[2 + j])) * half(blk);
  const uint8_t* qs = (t == GgmlType::Q5_0 || t == GgmlType::Q5_1) ? qh + 4 : qh;
  int q = j < 16 ? (qs[j] & 15) : (qs[j - 16] >> 4);
  if (t == GgmlType::Q5_0 || t == GgmlType::Q5_1) {
    const uint32_t bits = uint32_t(qh[0]) | uint32_t(qh[1]) << 8 | uint32_t(qh[2]) << 16 | uint32_t(qh[3]) << 24;
    q += int((bits >> j) & 1) * 16;
  }
  if (t == GgmlType::Q4_0) return float(q - 8) * half(blk);
  if (t == GgmlType::Q5_0) return float(q - 16) * half(blk);
  return float(q) * half(blk) + half(blk + 2);
}

// 6-bit scale and min of sub-block s from the 12 packed bytes of Q4_K/Q5_K.
void refScaleMin(const uint8_t* s, int sub, int* sc, int* m) {
  if (sub < 4) {
    *sc = s[sub] & 0x3F;
    *m = s[sub + 4] & 0x3F;
  } else {
    *sc = (s[sub + 4] & 0x0F) | ((s[sub - 4] & 0xC0) >> 2);
    *m = (s[sub + 4] >> 4) | ((s[sub] & 0xC0) >> 2);
  }
}

float refK(GgmlType t, const uint8_t* row, int64_t i) {
  const uint8_t* blk = row + (i / 256) * int64_t(ggmlBlockBytes(t));
  const int e = int(i % 256);
  if (t == GgmlType::Q6_K) {  // ql[128] qh[64] scales[16] d
    const int h = e / 128, r = e % 128, quarter = r / 32, l = r % 32;
    const uint8_t lowByte = blk[64 * h + (quarter & 1) * 32 + l];
    const int low = quarter < 2 ? (lowByte & 15) : (lowByte >> 4);
    const int high = (blk[128 + 32 * h + l] >> (2 * quarter)) & 3;
    return half(blk + 208) * float(int8_t(blk[192 + e / 16])) * float((low | (high << 4)) - 32);
  }
  const int sub = e / 32, l = e % 32;
  int sc, m;
  refScaleMin(blk + 4, sub, &sc, &m);
  const uint8_t* qs = blk + (t == GgmlType::Q5_K ? 16 + 32 : 16);
  const uint8_t byte = qs[32 * (sub / 2) + l];
  int q = sub % 2 == 0 ? (byte & 15) : (byte >> 4);
  if (t == GgmlType::Q5_K) q += ((blk[16 + l] >> sub) & 1) * 16;
  return half(blk) * float(sc) * float(q) - half(blk + 2) * float(m);
}

float reference(GgmlType t, const uint8_t* row, int64_t i) {
  switch (t) {
    case GgmlType::F32: { float f; std::memcpy(&f, row + 4 * i, 4); return f; }
    case GgmlType::F16: return half(row + 2 * i);
    case GgmlType::BF16: return bf16ToFloat(le16(row + 2 * i));
    case GgmlType::Q4_K: case GgmlType::Q5_K: case GgmlType::Q6_K: return refK(t, row, i);
    default: return refLegacy(t, row, i);
  }
}

// A finite half in roughly [-2, 2] (random bits would give NaN and Inf scales).
uint16_t randomHalf(std::mt19937& rng) { return floatToF16(std::uniform_real_distribution<float>(-2.f, 2.f)(rng)); }

// Random bytes with every half-float scale field replaced by a finite value.
std::vector<uint8_t> randomRow(GgmlType t, int64_t n, std::mt19937& rng) {
  std::vector<uint8_t> bytes(ggmlRowBytes(t, n));
  for (uint8_t& b : bytes) b = uint8_t(rng());
  const size_t bb = ggmlBlockBytes(t);
  auto setHalf = [&](size_t at) { const uint16_t h = randomHalf(rng); std::memcpy(&bytes[at], &h, 2); };
  for (size_t blk = 0; blk < bytes.size(); blk += bb) {
    switch (t) {
      case GgmlType::F16: setHalf(blk); break;
      case GgmlType::F32: { const float f = std::normal_distribution<float>()(rng); std::memcpy(&bytes[blk], &f, 4); break; }
      case GgmlType::BF16: { const uint16_t h = floatToBf16(std::normal_distribution<float>()(rng)); std::memcpy(&bytes[blk], &h, 2); break; }
      case GgmlType::Q6_K: setHalf(blk + 208); break;
      case GgmlType::Q4_1: case GgmlType::Q5_1: case GgmlType::Q4_K: case GgmlType::Q5_K: setHalf(blk); setHalf(blk + 2); break;
      default: setHalf(blk); break;
    }
  }
  return bytes;
}

std::vector<float> gaussian(int64_t n, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = dist(rng);
  return x;
}

double relativeRmsError(const std::vector<float>& x, const std::vector<float>& y) {
  double err = 0, norm = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    err += double(x[i] - y[i]) * (x[i] - y[i]);
    norm += double(x[i]) * x[i];
  }
  return std::sqrt(err / norm);
}

std::vector<float> roundTrip(GgmlType t, const std::vector<float>& x) {
  std::vector<uint8_t> q(ggmlRowBytes(t, int64_t(x.size())));
  quantizeRow(t, x.data(), q.data(), int64_t(x.size()));
  std::vector<float> y(x.size());
  dequantizeRow(t, q.data(), y.data(), int64_t(x.size()));
  return y;
}

}  // namespace

class TestQuant : public QObject {
  Q_OBJECT

 private slots:
  void layoutSizes() {
    QCOMPARE(ggmlBlockBytes(GgmlType::Q8_0), size_t(34));
    QCOMPARE(ggmlBlockBytes(GgmlType::Q4_K), size_t(144));
    QCOMPARE(ggmlBlockBytes(GgmlType::Q6_K), size_t(210));
    QCOMPARE(ggmlRowBytes(GgmlType::Q5_K, 768), size_t(3 * 176));
    QCOMPARE(ggmlTypeName(23), std::string("IQ4_XS"));
    QCOMPARE(ggmlTypeName(99), std::string("type 99"));
    QVERIFY(!isSupportedGgmlType(10));  // Q2_K: known, not supported
  }

  void halfConversionIsExactForEveryHalf() {
    for (uint32_t h = 0; h < 65536; ++h) {
      const float a = halfToFloat(uint16_t(h)), b = f16ToFloat(uint16_t(h));
      if (std::isnan(b)) QVERIFY(std::isnan(a));
      else QVERIFY2(std::memcmp(&a, &b, 4) == 0, qPrintable(QString::number(h, 16)));
    }
  }

  void dequantizationMatchesTheSpecBitExactly_data() {
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("n");
    const std::pair<GgmlType, std::vector<int>> cases[] = {
        {GgmlType::F32, {1, 13, 257}},  {GgmlType::F16, {1, 13, 257}},  {GgmlType::BF16, {1, 13, 257}},
        {GgmlType::Q8_0, {32, 96, 224}}, {GgmlType::Q4_0, {32, 96, 224}}, {GgmlType::Q4_1, {32, 96, 224}},
        {GgmlType::Q5_0, {32, 96, 224}}, {GgmlType::Q5_1, {32, 96, 224}}, {GgmlType::Q4_K, {256, 768, 1792}},
        {GgmlType::Q5_K, {256, 768, 1792}}, {GgmlType::Q6_K, {256, 768, 1792}}};
    for (const auto& [t, lengths] : cases)
      for (int n : lengths)
        QTest::newRow((ggmlTypeName(t) + " n=" + std::to_string(n)).c_str()) << int(t) << n;
  }
  void dequantizationMatchesTheSpecBitExactly() {
    QFETCH(int, type);
    QFETCH(int, n);
    const GgmlType t = GgmlType(type);
    std::mt19937 rng(uint32_t(type * 1000 + n));
    for (int trial = 0; trial < 20; ++trial) {
      const std::vector<uint8_t> row = randomRow(t, n, rng);
      std::vector<float> out(static_cast<size_t>(n));
      dequantizeRow(t, row.data(), out.data(), n);
      for (int i = 0; i < n; ++i) {
        const float want = reference(t, row.data(), i);
        if (std::memcmp(&want, &out[size_t(i)], 4) != 0)
          QFAIL(qPrintable(QString("element %1: %2, spec says %3").arg(i).arg(out[size_t(i)]).arg(want)));
      }
    }
  }

  void rejectsRowsThatAreNotWholeBlocks() {
    float out[300];
    uint8_t in[300 * 4] = {};
    QVERIFY_THROWS_EXCEPTION(Error, dequantizeRow(GgmlType::Q8_0, in, out, 33));
    QVERIFY_THROWS_EXCEPTION(Error, dequantizeRow(GgmlType::Q4_K, in, out, 288));
    QVERIFY_THROWS_EXCEPTION(Error, quantizeRow(GgmlType::Q4_K, out, in, 100));
    QVERIFY_THROWS_EXCEPTION(Error, quantizeRow(GgmlType::Q6_K, out, in, 256));  // no quantizer for it
  }

  void quantizersStayWithinTheirResolution() {
    std::mt19937 rng(3);
    const std::vector<float> x = gaussian(256 * 12, rng, 0.02f);
    // Measured on this data: Q8_0 ~0.006, Q4_0 ~0.11, Q4_K ~0.09; the bounds leave margin.
    QVERIFY(relativeRmsError(x, roundTrip(GgmlType::Q8_0, x)) < 0.01);
    QVERIFY(relativeRmsError(x, roundTrip(GgmlType::Q4_0, x)) < 0.15);
    QVERIFY(relativeRmsError(x, roundTrip(GgmlType::Q4_K, x)) < 0.12);
    QVERIFY(relativeRmsError(x, roundTrip(GgmlType::Q8_K, x)) < 0.01);
  }

  void q8_0ElementsAreWithinHalfAStep() {
    std::mt19937 rng(4);
    const std::vector<float> x = gaussian(32 * 7, rng);
    std::vector<BlockQ8_0> q(7);
    quantizeRow(GgmlType::Q8_0, x.data(), q.data(), 32 * 7);
    for (int b = 0; b < 7; ++b)
      for (int j = 0; j < 32; ++j) {
        const float d = halfToFloat(q[size_t(b)].d);
        QVERIFY(std::abs(q[size_t(b)].qs[j]) <= 127);
        QVERIFY(std::fabs(x[size_t(32 * b + j)] - d * q[size_t(b)].qs[j]) <= 0.5f * d + 1e-3f * std::fabs(d) * 127);
      }
  }

  void q8_KBlockSumsMatchItsQuants() {
    std::mt19937 rng(5);
    const std::vector<float> x = gaussian(256, rng);
    BlockQ8_K b;
    quantizeBlockQ8_K(x.data(), &b);
    for (int g = 0; g < 16; ++g) {
      int sum = 0;
      for (int l = 0; l < 16; ++l) sum += b.qs[16 * g + l];
      QCOMPARE(int(b.bsums[g]), sum);
    }
  }

  void q4_KHandlesConstantAndZeroBlocks() {
    std::vector<float> zeros(256, 0.0f), ones(256, 1.0f), negative(256, -0.5f);
    for (const auto* x : {&zeros, &ones, &negative}) {
      const std::vector<float> y = roundTrip(GgmlType::Q4_K, *x);
      for (size_t i = 0; i < y.size(); ++i) QVERIFY(std::isfinite(y[i]) && std::fabs(y[i] - (*x)[i]) < 0.02f);
    }
  }
};

QTEST_GUILESS_MAIN(TestQuant)
#include "tst_quant.moc"
