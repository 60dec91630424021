// Paged attention over a bf16 KV cache (kv_cache_dtype=bfloat16), for every ISA this
// machine runs: writeKvRow rounds to nearest even; the kernels against a double reference
// computed from the bf16-rounded K/V; bit-identical to the f32 cache holding the same
// (bf16-representable) values, since widening is exact and the f32 operations follow it;
// and a row's output the same alone and inside a mixed batch (prefill chunk + decodes).
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

std::vector<float> bf16Rounded(std::vector<float> v) {
  for (float& f : v) f = bf16ToFloat(floatToBf16(f));
  return v;
}

struct Shape {
  int heads, kvHeads, d;
};

// One cache of either type, poisoned (NaN in f32, a NaN pattern in bf16) until written.
struct Cache {
  std::vector<float> k32, v32;
  std::vector<uint16_t> k16, v16;
  DType type;
  Cache(size_t elements, DType t) : type(t) {
    if (t == DType::F32) k32.assign(elements, kNaN), v32.assign(elements, kNaN);
    else k16.assign(elements, 0x7fc1), v16.assign(elements, 0x7fc1);
  }
  KvLayer layer() {
    return type == DType::F32 ? KvLayer{k32.data(), v32.data(), type} : KvLayer{k16.data(), v16.data(), type};
  }
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

class TestKvBf16Attention : public QObject {
  Q_OBJECT

 private slots:
  void writeRoundsToNearestEven();
  void matchesBf16Reference();
  void sameAsF32CacheOfTheSameValues();
  void rowsAreBatchInvariant();
};

// The stored bits are floatToBf16's (ties to even), in the layout of attention.h.
void TestKvBf16Attention::writeRoundsToNearestEven() {
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

// GQA groups 1, 2, 3, 4, 5 and 8; head sizes that end inside a SIMD vector (20, 36) or
// not (64, 80); block sizes below, at and between the SIMD widths; contexts of 1, 45 and
// 21 positions (across block boundaries).
void TestKvBf16Attention::matchesBf16Reference() {
  for (const Shape& sh : {Shape{4, 4, 64}, Shape{4, 2, 36}, Shape{6, 2, 20}, Shape{8, 2, 64}, Shape{10, 2, 64},
                          Shape{8, 1, 80}})
    for (int blockSize : {1, 16, 24, 32}) {
      const Pool pool(sh, blockSize, {1, 45}, unsigned(blockSize + sh.d));
      Cache cache(pool.numElements, DType::BF16);
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
          const std::vector<float> K = bf16Rounded(pool.keys[s]), V = bf16Rounded(pool.values[s]);
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

// Widening is exact and everything after it is the f32 path: a bf16 cache gives the f32
// cache's output bit for bit when the f32 cache holds the same (bf16-rounded) values.
void TestKvBf16Attention::sameAsF32CacheOfTheSameValues() {
  for (const Shape& sh : {Shape{8, 2, 64}, Shape{6, 2, 20}, Shape{3, 3, 80}})
    for (int blockSize : {16, 24}) {
      Pool pool(sh, blockSize, {37, 50}, 7);
      for (auto& k : pool.keys) k = bf16Rounded(k);
      for (auto& v : pool.values) v = bf16Rounded(v);
      Cache c16(pool.numElements, DType::BF16), c32(pool.numElements, DType::F32);
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

// Each row's output alone (one thread) equals its output inside a batch of a prefill
// chunk (positions 10..29 of one sequence) and decodes of two others (three threads).
void TestKvBf16Attention::rowsAreBatchInvariant() {
  const Shape sh{8, 2, 64};
  for (int blockSize : {16, 32}) {
    const Pool pool(sh, blockSize, {30, 61, 17}, 11);
    Cache cache(pool.numElements, DType::BF16);
    pool.fill(cache);
    std::vector<RowPosition> batch;
    for (int p = 10; p < 30; ++p) batch.push_back({pool.tables[0].data(), p});
    batch.push_back({pool.tables[1].data(), 60});
    batch.push_back({pool.tables[2].data(), 16});
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
                 qPrintable(QString("%1 block %2 row %3").arg(isaName(isa)).arg(blockSize).arg(r)));
      }
    }
  }
}

QTEST_GUILESS_MAIN(TestKvBf16Attention)
#include "tst_kv_bf16_attention.moc"
