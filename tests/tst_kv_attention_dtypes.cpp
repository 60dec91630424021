// Paged attention over a bf16 or FP8 (E4M3, E5M2) KV cache (kv_cache_dtype bfloat16,
// fp8_e4m3, fp8_e5m2), for every ISA this machine runs: writeKvRow rounds to nearest
// even; the kernels against a double reference computed from the rounded K/V;
// bit-identical to the f32 cache holding the same (representable) values, since widening
// is exact and the f32 operations follow it; every FP8 code widened as the scalar decode
// does; and a row's output the same alone and inside a mixed batch (prefill chunk +
// decodes). Also the FP8 rounding itself against a brute-force nearest-value search.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "engine/exec/cpu/attention.h"
#include "engine/exec/cpu/kernels.h"
#include "engine/exec/cpu/thread_pool.h"
#include "common/random_floats.h"

using namespace lwb;
using lwb::test::randomFloats;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The value a cache of `type` holds for f.
float rounded(DType type, float f) {
  switch (type) {
    case DType::BF16: return bf16ToFloat(floatToBf16(f));
    case DType::F8E4M3: return fp8E4m3ToFloat(floatToFp8E4m3(f));
    case DType::F8E5M2: return fp8E5m2ToFloat(floatToFp8E5m2(f));
    default: return f;
  }
}

std::vector<float> rounded(DType type, std::vector<float> v) {
  for (float& f : v) f = rounded(type, f);
  return v;
}

void addTypeColumn() {
  QTest::addColumn<int>("type");
  QTest::newRow("bf16") << int(DType::BF16);
  QTest::newRow("fp8_e4m3") << int(DType::F8E4M3);
  QTest::newRow("fp8_e5m2") << int(DType::F8E5M2);
}

struct Shape {
  int heads, kvHeads, d;
};

// One cache of any type, poisoned with NaN patterns until written.
struct Cache {
  std::vector<uint8_t> k, v;
  DType type;
  Cache(size_t elements, DType t) : k(elements * dtypeSize(t)), v(elements * dtypeSize(t)), type(t) {
    for (auto* bytes : {&k, &v}) {
      if (t == DType::F32) {
        for (size_t i = 0; i < elements; ++i) std::memcpy(bytes->data() + 4 * i, &kNaN, 4);
      } else if (t == DType::BF16) {
        const uint16_t nan = 0x7fc1;
        for (size_t i = 0; i < elements; ++i) std::memcpy(bytes->data() + 2 * i, &nan, 2);
      } else {
        std::fill(bytes->begin(), bytes->end(), uint8_t(0x7f));  // NaN in E4M3 and E5M2
      }
    }
  }
  KvLayer layer() { return KvLayer{k.data(), v.data(), type}; }
};

// Sequences with shuffled block tables over one pool, each with its keys and values
// (as the caller gave them) written position by position.
struct Pool {
  AttentionShape shape;
  std::vector<std::vector<int32_t>> tables;
  std::vector<std::vector<float>> keys, values;
  size_t kvSize = 0, numElements = 0;

  Pool(const Shape& sh, int blockSize, const std::vector<int>& lens, unsigned seed) {
    shape = {sh.heads, sh.kvHeads, sh.d, blockSize};
    kvSize = size_t(sh.kvHeads * sh.d);
    int numBlocks = 3;
    for (int n : lens) numBlocks += (n + blockSize - 1) / blockSize;
    std::vector<int32_t> ids(size_t(numBlocks), 0);
    for (int i = 0; i < numBlocks; ++i) ids[size_t(i)] = i;
    std::shuffle(ids.begin(), ids.end(), std::mt19937(seed));
    auto next = ids.begin();
    for (size_t s = 0; s < lens.size(); ++s) {
      const int blocks = (lens[s] + blockSize - 1) / blockSize;
      tables.emplace_back(next, next + blocks);
      next += blocks;
      keys.push_back(randomFloats(size_t(lens[s]) * kvSize, seed + 10 + unsigned(s), -2, 2));
      values.push_back(randomFloats(size_t(lens[s]) * kvSize, seed + 20 + unsigned(s)));
    }
    numElements = size_t(numBlocks * blockSize) * kvSize;
  }
  void fill(Cache& c) const {
    for (size_t s = 0; s < tables.size(); ++s)
      for (size_t p = 0; p < keys[s].size() / kvSize; ++p)
        writeKvRow(shape, {tables[s].data(), int(p)}, keys[s].data() + p * kvSize, values[s].data() + p * kvSize, c.layer());
  }
};

// softmax(q·Kᵀ/√d)·V in double for row `r` (query q) of sequence `seq` at `pos`.
double reference(const Pool& pool, const std::vector<float>& K, const std::vector<float>& V, const float* q, int pos,
                 int h, int i) {
  const int d = pool.shape.headDim, kvh = h / (pool.shape.numHeads / pool.shape.numKvHeads);
  std::vector<double> sc(size_t(pos + 1));
  double mx = -1e300, sum = 0, out = 0;
  for (int j = 0; j <= pos; ++j) {
    double dot = 0;
    for (int e = 0; e < d; ++e) dot += double(q[h * d + e]) * K[size_t(j) * pool.kvSize + size_t(kvh * d + e)];
    sc[size_t(j)] = dot / std::sqrt(double(d));
    mx = std::max(mx, sc[size_t(j)]);
  }
  for (double& e : sc) sum += (e = std::exp(e - mx));
  for (int j = 0; j <= pos; ++j) out += sc[size_t(j)] / sum * V[size_t(j) * pool.kvSize + size_t(kvh * d + i)];
  return out;
}

}  // namespace

class TestKvAttentionDtypes : public QObject {
  Q_OBJECT

 private slots:
  void writeRoundsToNearestEven();
  void fp8RoundsToTheNearestValue();
  void fp8EdgeCases();
  void everyFp8CodeWidensExactly();
  void matchesReference_data() { addTypeColumn(); }
  void matchesReference();
  void sameAsF32CacheOfTheSameValues_data() { addTypeColumn(); }
  void sameAsF32CacheOfTheSameValues();
  void rowsAreBatchInvariant_data() { addTypeColumn(); }
  void rowsAreBatchInvariant();
};

// The stored bits are floatToBf16's (ties to even), in the layout of attention.h.
void TestKvAttentionDtypes::writeRoundsToNearestEven() {
  const AttentionShape shape{2, 2, 4, 2};
  std::vector<int32_t> table{1, 0};
  std::vector<uint16_t> k(2 * 2 * 8, 0), v(2 * 2 * 8, 0);
  // 1 + 2^-8 ties between 1 and 1 + 2^-7: even mantissa (1.0); 1 + 3·2^-8 rounds up.
  const std::vector<float> kr{1.0f + 1.0f / 256, 1.0f + 3.0f / 256, -2.5f, 1e-3f, 7.0f, -0.1f, 3.3f, 100.0f};
  const std::vector<float> vr{0.5f, -1.0f / 3, 65504.0f, -1e-5f, 2.0f, 0.7f, -0.25f, 1.1f};
  writeKvRow(shape, {table.data(), 3}, kr.data(), vr.data(), {k.data(), v.data(), DType::BF16});  // block 0, slot 1
  QCOMPARE(floatToBf16(kr[0]), uint16_t(0x3f80));
  QCOMPARE(floatToBf16(kr[1]), uint16_t(0x3f82));
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(k[size_t((h * 4 + i) * 2 + 1)], floatToBf16(kr[size_t(h * 4 + i)]));  // K: [block, head, dim, slot]
      QCOMPARE(v[size_t(1 * 8 + h * 4 + i)], floatToBf16(vr[size_t(h * 4 + i)]));     // V: [block, slot, head, dim]
    }
}

namespace {

struct Fp8Format {
  const char* name;
  uint8_t (*encode)(float);
  float (*decode)(uint8_t);
  uint8_t maxCode;  // the largest finite positive code
};
const Fp8Format kFormats[] = {{"e4m3", floatToFp8E4m3, fp8E4m3ToFloat, 0x7e}, {"e5m2", floatToFp8E5m2, fp8E5m2ToFloat, 0x7b}};

// What the encoder must return: the code of the nearest finite value, a tie to the even
// code (= even mantissa), beyond the largest value that value, with f's sign.
uint8_t nearestCode(const Fp8Format& fmt, float f) {
  const uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  const double a = std::fabs(double(f));
  if (a >= fmt.decode(fmt.maxCode)) return sign | fmt.maxCode;
  int best = 0;
  for (int c = 1; c <= fmt.maxCode; ++c) {
    const double dc = std::fabs(fmt.decode(uint8_t(c)) - a), db = std::fabs(fmt.decode(uint8_t(best)) - a);
    if (dc < db || (dc == db && c % 2 == 0)) best = c;
  }
  return sign | uint8_t(best);
}

}  // namespace

// floatToFp8E4m3 / floatToFp8E5m2 against a brute-force search: every finite value, every
// midpoint between neighbours (exact ties) and a float either side of it, and random
// floats over 2^-24..2^20 of both signs.
void TestKvAttentionDtypes::fp8RoundsToTheNearestValue() {
  for (const Fp8Format& fmt : kFormats) {
    std::vector<float> probes;
    for (int c = 0; c <= fmt.maxCode; ++c) {
      const float v = fmt.decode(uint8_t(c));
      probes.push_back(v);
      if (c < fmt.maxCode) {
        const float mid = float((double(v) + fmt.decode(uint8_t(c + 1))) / 2);  // exact in f32
        probes.insert(probes.end(), {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)});
      }
    }
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> mant(1.0f, 2.0f);
    std::uniform_int_distribution<int> exp2(-24, 20);
    for (int i = 0; i < 20000; ++i) probes.push_back(std::ldexp(mant(rng), exp2(rng)));
    for (float f : probes)
      for (float x : {f, -f}) {
        const uint8_t got = fmt.encode(x), want = nearestCode(fmt, x);
        QVERIFY2(got == want, qPrintable(QString("%1(%2): 0x%3, expected 0x%4").arg(fmt.name).arg(double(x), 0, 'g', 9)
                                             .arg(got, 2, 16, QChar('0')).arg(want, 2, 16, QChar('0'))));
      }
  }
}

void TestKvAttentionDtypes::fp8EdgeCases() {
  const float inf = std::numeric_limits<float>::infinity();
  QCOMPARE(floatToFp8E4m3(kNaN), uint8_t(0x7f));
  QCOMPARE(floatToFp8E4m3(-kNaN) & 0x7f, 0x7f);
  QCOMPARE(floatToFp8E4m3(inf), uint8_t(0x7e));  // E4M3 has no infinity: saturated to 448
  QCOMPARE(floatToFp8E4m3(-inf), uint8_t(0xfe));
  QCOMPARE(floatToFp8E4m3(464.0f), uint8_t(0x7e));  // halfway to 480, which would be the NaN code
  QCOMPARE(floatToFp8E4m3(std::ldexp(1.0f, -10)), uint8_t(0x00));  // tie between 0 and 2^-9: even
  QCOMPARE(floatToFp8E4m3(3 * std::ldexp(1.0f, -10)), uint8_t(0x02));
  QCOMPARE(floatToFp8E4m3(-0.0f), uint8_t(0x80));
  QCOMPARE(floatToFp8E4m3(1.0f), uint8_t(0x38));
  QVERIFY(std::isnan(fp8E4m3ToFloat(0x7f)) && std::isnan(fp8E4m3ToFloat(0xff)));
  QCOMPARE(fp8E4m3ToFloat(0x7e), 448.0f);
  QCOMPARE(fp8E4m3ToFloat(0x01), std::ldexp(1.0f, -9));
  QCOMPARE(fp8E4m3ToFloat(0x08), std::ldexp(1.0f, -6));
  QCOMPARE(floatToFp8E5m2(kNaN) & 0x7f, 0x7f);
  QCOMPARE(floatToFp8E5m2(inf), uint8_t(0x7b));  // saturated to 57344, as vLLM's scaled conversion
  QCOMPARE(floatToFp8E5m2(1.0f), uint8_t(0x3c));
  QCOMPARE(floatToFp8E5m2(std::ldexp(1.0f, -17)), uint8_t(0x00));
  QCOMPARE(fp8E5m2ToFloat(0x7b), 57344.0f);
  QCOMPARE(fp8E5m2ToFloat(0x7c), inf);
  QVERIFY(std::isnan(fp8E5m2ToFloat(0x7d)));
  QCOMPARE(fp8E5m2ToFloat(0x01), std::ldexp(1.0f, -16));
  for (int c = 0; c < 256; ++c) QCOMPARE(fp8E5m2ToFloat(uint8_t(c)), f16ToFloat(uint16_t(c << 8)) * 1.0f);
}

// Every code through each ISA's attention: one position, so the output is exactly its V
// (softmax weight 1): the widened value of each of the 256 codes in the 256 dims of one
// head, bit for bit the scalar decode's (NaN codes NaN; -0 may come out as +0).
void TestKvAttentionDtypes::everyFp8CodeWidensExactly() {
  const AttentionShape shape{1, 1, 256, 16};
  const std::vector<int32_t> table{0};
  const std::vector<float> q(256, 0.0f);
  for (DType type : {DType::F8E4M3, DType::F8E5M2}) {
    Cache cache(16 * 256, type);
    std::fill(cache.k.begin(), cache.k.end(), uint8_t(0));
    for (int c = 0; c < 256; ++c) cache.v[size_t(c)] = uint8_t(c);  // block 0, slot 0, dims 0..255
    for (Isa isa : supportedIsas()) {
      ThreadPool one(1);
      std::vector<std::vector<float>> scratch;
      std::vector<float> out(256, 0.0f);
      pagedAttention(one, cpuKernels(isa), shape, {{table.data(), 0}}, q.data(), cache.layer(), out.data(), scratch);
      for (int c = 0; c < 256; ++c) {
        const float want = type == DType::F8E4M3 ? fp8E4m3ToFloat(uint8_t(c)) : fp8E5m2ToFloat(uint8_t(c));
        const float got = out[size_t(c)];
        QVERIFY2(std::isnan(want) ? std::isnan(got) : got == want,
                 qPrintable(QString("%1 %2 code 0x%3: %4, expected %5").arg(isaName(isa)).arg(dtypeName(type).data())
                                .arg(c, 2, 16, QChar('0')).arg(double(got)).arg(double(want))));
      }
    }
  }
}

// GQA groups 1, 2, 3, 4, 5 and 8; head sizes that end inside a SIMD vector (20, 36) or
// not (64, 80); block sizes below, at and between the SIMD widths; contexts of 1, 45 and
// 21 positions (across block boundaries).
void TestKvAttentionDtypes::matchesReference() {
  QFETCH(int, type);
  const DType dtype = DType(type);
  for (const Shape& sh : {Shape{4, 4, 64}, Shape{4, 2, 36}, Shape{6, 2, 20}, Shape{8, 2, 64}, Shape{10, 2, 64},
                          Shape{8, 1, 80}})
    for (int blockSize : {1, 16, 24, 32}) {
      const Pool pool(sh, blockSize, {1, 45}, unsigned(blockSize + sh.d));
      Cache cache(pool.numElements, dtype);
      pool.fill(cache);
      const std::vector<RowPosition> rows{{pool.tables[0].data(), 0}, {pool.tables[1].data(), 44}, {pool.tables[1].data(), 20}};
      const std::vector<int> rowSeq{0, 1, 1};
      const size_t qSize = size_t(sh.heads * sh.d);
      const std::vector<float> q = randomFloats(3 * qSize, 40, -2, 2);
      for (Isa isa : supportedIsas()) {
        ThreadPool threads(2);
        std::vector<std::vector<float>> scratch;
        std::vector<float> out(3 * qSize, kNaN);
        pagedAttention(threads, cpuKernels(isa), pool.shape, rows, q.data(), cache.layer(), out.data(), scratch);
        for (size_t r = 0; r < 3; ++r) {
          const size_t s = size_t(rowSeq[r]);
          const std::vector<float> K = rounded(dtype, pool.keys[s]), V = rounded(dtype, pool.values[s]);
          for (int h = 0; h < sh.heads; ++h)
            for (int i = 0; i < sh.d; ++i) {
              const double want = reference(pool, K, V, q.data() + r * qSize, rows[r].pos, h, i);
              const float got = out[r * qSize + size_t(h * sh.d + i)];
              QVERIFY2(std::fabs(got - want) <= 2e-6, qPrintable(QString("%1 G %2 d %3 block %4 row %5 head %6 dim %7: %8 vs %9")
                                                                  .arg(isaName(isa)).arg(sh.heads / sh.kvHeads).arg(sh.d)
                                                                  .arg(blockSize).arg(r).arg(h).arg(i).arg(got).arg(want)));
            }
        }
      }
    }
}

// Widening is exact and everything after it is the f32 path: a bf16 or FP8 cache gives the
// f32 cache's output bit for bit when the f32 cache holds the same (rounded) values.
void TestKvAttentionDtypes::sameAsF32CacheOfTheSameValues() {
  QFETCH(int, type);
  const DType dtype = DType(type);
  for (const Shape& sh : {Shape{8, 2, 64}, Shape{6, 2, 20}, Shape{3, 3, 80}})
    for (int blockSize : {16, 24}) {
      Pool pool(sh, blockSize, {37, 50}, 7);
      for (auto& k : pool.keys) k = rounded(dtype, k);
      for (auto& v : pool.values) v = rounded(dtype, v);
      Cache c16(pool.numElements, dtype), c32(pool.numElements, DType::F32);
      pool.fill(c16);
      pool.fill(c32);
      const std::vector<RowPosition> rows{{pool.tables[0].data(), 36}, {pool.tables[1].data(), 49}, {pool.tables[1].data(), 3}};
      const size_t qSize = size_t(sh.heads * sh.d);
      const std::vector<float> q = randomFloats(3 * qSize, 41, -2, 2);
      for (Isa isa : supportedIsas()) {
        ThreadPool threads(2);
        std::vector<std::vector<float>> scratch;
        std::vector<float> o16(3 * qSize, kNaN), o32(3 * qSize, kNaN);
        pagedAttention(threads, cpuKernels(isa), pool.shape, rows, q.data(), c16.layer(), o16.data(), scratch);
        pagedAttention(threads, cpuKernels(isa), pool.shape, rows, q.data(), c32.layer(), o32.data(), scratch);
        QVERIFY2(std::memcmp(o16.data(), o32.data(), o16.size() * sizeof(float)) == 0,
                 qPrintable(QString("%1 d %2 block %3").arg(isaName(isa)).arg(sh.d).arg(blockSize)));
      }
    }
}

// Each row's output alone (one thread; the cache's own kernels) equals its output inside
// a batch (three threads) of two prefill chunks (positions 10..29 of one sequence, 5..80
// of another: runs of rows whose K/V pagedAttention widens once, in tasks of up to 64
// rows), two rows too few to widen (positions 0..1 of the third) and a decode, for head
// sizes with and without a partial SIMD vector.
void TestKvAttentionDtypes::rowsAreBatchInvariant() {
  QFETCH(int, type);
  for (const Shape& sh : {Shape{8, 2, 64}, Shape{6, 2, 20}})
  for (int blockSize : {16, 32}) {
    const Pool pool(sh, blockSize, {30, 90, 17}, 11);
    Cache cache(pool.numElements, DType(type));
    pool.fill(cache);
    std::vector<RowPosition> batch;
    for (int p = 10; p < 30; ++p) batch.push_back({pool.tables[0].data(), p});
    for (int p = 5; p <= 80; ++p) batch.push_back({pool.tables[1].data(), p});
    batch.push_back({pool.tables[2].data(), 0});
    batch.push_back({pool.tables[2].data(), 1});
    batch.push_back({pool.tables[1].data(), 89});
    const size_t qSize = size_t(sh.heads * sh.d);
    const std::vector<float> q = randomFloats(batch.size() * qSize, 42, -2, 2);
    for (Isa isa : supportedIsas()) {
      ThreadPool three(3), one(1);
      std::vector<std::vector<float>> scratch;
      std::vector<float> together(batch.size() * qSize, kNaN), alone(qSize, kNaN);
      pagedAttention(three, cpuKernels(isa), pool.shape, batch, q.data(), cache.layer(), together.data(), scratch);
      for (size_t r = 0; r < batch.size(); ++r) {
        pagedAttention(one, cpuKernels(isa), pool.shape, {batch[r]}, q.data() + r * qSize, cache.layer(), alone.data(), scratch);
        QVERIFY2(std::memcmp(alone.data(), together.data() + r * qSize, qSize * sizeof(float)) == 0,
                 qPrintable(QString("%1 d %2 block %3 row %4").arg(isaName(isa)).arg(sh.d).arg(blockSize).arg(r)));
      }
    }
  }
}

QTEST_GUILESS_MAIN(TestKvAttentionDtypes)
#include "tst_kv_attention_dtypes.moc"
