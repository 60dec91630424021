// The tiles of every GGUF weight type (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 against Q8_0; Q4_K,
// Q5_K, Q6_K against Q8_K), prefill's and the legacy types' decode rows: on random blocks
// (every bit pattern of the quants), every ISA's tile gives each output its dot's exact
// bits, and the quantized GEMM of a GGUF-typed weight gives each output exactly that dot
// whatever the batch size and the thread count (batch invariance: the tiles, the rows
// kernels and the edge dots must agree).
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

template <typename Act>
std::vector<Act> activations(GgmlType actType, int rows, int K, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(size_t(rows) * size_t(K));
  for (float& v : x) v = dist(rng);
  std::vector<Act> out(x.size() / size_t(ggmlBlockSize(actType)));
  quantizeRow(actType, x.data(), out.data(), int64_t(x.size()));
  return out;
}

template <typename Block, typename Act>
using DotMember = float (*QuantKernels::*)(const Block*, const Act*, int);
template <typename Block, typename Act>
using TileMember = void (*QuantKernels::*)(const Block* const*, const Act* const*, int, float*, size_t);

// A tile's shape on one ISA: Q8_0's, Q4_0's and Q5_0's prefill tiles have their own.
using DimsOf = QuantTileDims (*)(const QuantKernels&);
QuantTileDims defaultTile(const QuantKernels&) { return {}; }
QuantTileDims q8_0Tile(const QuantKernels& qk) { return qk.tileDimsQ8_0; }
QuantTileDims q4_0Tile(const QuantKernels& qk) { return qk.tileDimsQ4_0; }
QuantTileDims q5_0Tile(const QuantKernels& qk) { return qk.tileDimsQ5_0; }

// Each output of `tile` (R × C as dimsOf says, on every ISA) against its dot, bit for bit.
template <typename Block, typename Act>
void checkTileOutputs(GgmlType type, const QuantKernels& qk, DotMember<Block, Act> dot, TileMember<Block, Act> tile,
                      QuantTileDims dims, const std::vector<const Block*>& wp, const std::vector<const Act*>& xp,
                      int nb) {
  const int R = dims.rows, C = dims.cols;
  QVERIFY2(qk.*tile != nullptr, isaName(qk.isa));
  const size_t ldy = size_t(C) + 3;
  std::vector<float> y(size_t(R) * ldy, NAN);
  (qk.*tile)(wp.data(), xp.data(), nb, y.data(), ldy);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const float want = (qk.*dot)(wp[size_t(c)], xp[size_t(r)], nb), got = y[size_t(r) * ldy + size_t(c)];
      QVERIFY2(std::isfinite(want), "the random blocks must give finite dots");
      QVERIFY2(std::memcmp(&want, &got, 4) == 0,
               qPrintable(QString("%1 %2 %3x%4 nb=%5 [%6,%7]: tile %8, dot %9")
                              .arg(QString::fromStdString(ggmlTypeName(type)), isaName(qk.isa))
                              .arg(R).arg(C).arg(nb).arg(r).arg(c)
                              .arg(double(got), 0, 'g', 9).arg(double(want), 0, 'g', 9)));
    }
}

// One tile shape of one type on every ISA, on random blocks.
template <typename Block, typename Act>
void checkTileShape(GgmlType type, GgmlType actType, DotMember<Block, Act> dot, TileMember<Block, Act> tile,
                    DimsOf dimsOf) {
  std::mt19937 rng(31);
  for (Isa isa : supportedIsas()) {
    const QuantKernels& qk = quantKernels(isa);
    const QuantTileDims dims = dimsOf(qk);
    for (int nb : {1, 3, 8}) {
      const int K = nb * ggmlBlockSize(type), xBlocks = K / ggmlBlockSize(actType);
      const auto w = randomBlocks<Block>(size_t(nb) * size_t(dims.cols), rng, 0.01f);
      const auto x = activations<Act>(actType, dims.rows, K, rng);
      std::vector<const Block*> wp;
      std::vector<const Act*> xp;
      for (int c = 0; c < dims.cols; ++c) wp.push_back(w.data() + size_t(c) * size_t(nb));
      for (int r = 0; r < dims.rows; ++r) xp.push_back(x.data() + size_t(r) * size_t(xBlocks));
      checkTileOutputs(type, qk, dot, tile, dims, wp, xp, nb);
    }
  }
}

// The prefill tile of one type.
template <typename Block, typename Act>
void checkTile(GgmlType type, GgmlType actType, DotMember<Block, Act> dot, TileMember<Block, Act> tile,
               DimsOf tileDims = &defaultTile) {
  checkTileShape(type, actType, dot, tile, tileDims);
}

template <typename Block>
using RowsMember = QuantRows<Block, BlockQ8_0> QuantKernels::*;

// A legacy type's decode rows kernel (one group of its rows, or three, against one
// activation row) against its dot, bit for bit, on every ISA that has one; it writes
// nothing past its rows.
template <typename Block>
void checkDecodeRows(GgmlType type, DotMember<Block, BlockQ8_0> dot, RowsMember<Block> rowsFn) {
  std::mt19937 rng(33);
  int isasChecked = 0;
  for (Isa isa : supportedIsas()) {
    const QuantKernels& qk = quantKernels(isa);
    const QuantRows<Block, BlockQ8_0> kernel = qk.*rowsFn;
    if (kernel.fn == nullptr) continue;
    const int R = kernel.rows;
    QVERIFY2(R > 0, isaName(isa));
    for (int nb : {1, 3, 8, 48}) {
      const int groups = nb == 3 ? 3 : 1;  // a call runs several groups too
      const auto w = randomBlocks<Block>(size_t(nb) * size_t(R * groups), rng, 0.01f);
      const auto x = activations<BlockQ8_0>(GgmlType::Q8_0, 1, nb * kQk, rng);
      const int n = R * groups;
      std::vector<float> y(size_t(n) + 1, NAN);
      kernel.fn(w.data(), x.data(), nb, y.data(), n);
      for (int r = 0; r < n; ++r) {
        const float want = (qk.*dot)(w.data() + size_t(r) * size_t(nb), x.data(), nb), got = y[size_t(r)];
        QVERIFY2(std::isfinite(want), "the random blocks must give finite dots");
        QVERIFY2(std::memcmp(&want, &got, 4) == 0,
                 qPrintable(QString("%1 %2 nb=%3 row %4: rows kernel %5, dot %6")
                                .arg(QString::fromStdString(ggmlTypeName(type)), isaName(isa))
                                .arg(nb).arg(r).arg(double(got), 0, 'g', 9).arg(double(want), 0, 'g', 9)));
      }
      QVERIFY2(std::isnan(y[size_t(n)]), "a rows kernel writes past its rows");
    }
    ++isasChecked;
  }
#if defined(__x86_64__)
  QVERIFY2(isasChecked > 0, "every x86 ISA has the legacy types' decode rows kernels");
#endif
}

// Q8_0 blocks at the extremes of the integer arithmetic: every weight byte -128 or 127
// (and a mix), activations ±127 (quantizeRow's range), all-zero blocks.
std::vector<BlockQ8_0> extremeQ8_0(int numRows, int nb, int salt) {
  std::vector<BlockQ8_0> out(size_t(numRows) * size_t(nb));
  for (size_t i = 0; i < out.size(); ++i) {
    BlockQ8_0& b = out[i];
    b.d = floatToF16(0.001f * float(1 + (i + size_t(salt)) % 7));
    for (int k = 0; k < kQk; ++k) {
      const size_t pattern = (i + size_t(salt)) % 5;
      b.qs[k] = int8_t(pattern == 0 ? -128 : pattern == 1 ? 127 : pattern == 2 ? ((k + salt) % 2 ? 127 : -128)
                                          : pattern == 3 ? 0 : ((k * 37 + salt) % 3 == 0 ? -128 : (k % 2 ? 127 : -127)));
    }
  }
  return out;
}
std::vector<BlockQ8_0> extremeActivations(int numRows, int nb) {
  std::vector<BlockQ8_0> out(size_t(numRows) * size_t(nb));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].d = floatToF16(0.01f * float(1 + i % 3));
    for (int k = 0; k < kQk; ++k) out[i].qs[k] = int8_t(i % 4 == 3 ? 0 : ((k + int(i)) % 3 ? 127 : -127));
  }
  return out;
}

// gemm() over an N × K weight of `type` (random blocks, as a GGUF tensor) against the
// dot of each weight row with its own quantized input row, for several batches/threads.
template <typename Block, typename Act>
void checkGemm(GgmlType type, GgmlType actType, DotMember<Block, Act> dot) {
  const int N = 37, K = 2 * kQkK, T = 19;  // odd N and T: full tiles and edge dots both
  std::mt19937 rng(32);
  const auto w = randomBlocks<Block>(size_t(N) * size_t(K / ggmlBlockSize(type)), rng, 0.01f);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(size_t(T) * K);
  for (float& v : x) v = dist(rng);
  const Isa isa = detectIsa();
  const QuantKernels& qk = quantKernels(isa);
  const PackedMatrix m = copyQuantizedMatrix(w.data(), type, N, K);
  const size_t wRow = size_t(K / ggmlBlockSize(type));
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    for (int rows : {1, 6, T}) {
      std::vector<float> y(size_t(rows) * N, NAN);
      gemm(pool, cpuKernels(isa), x.data(), K, rows, {{&m, y.data(), size_t(N)}});
      for (int r = 0; r < rows; ++r) {
        std::vector<Act> xq(size_t(K / ggmlBlockSize(actType)));
        quantizeRow(actType, x.data() + size_t(r) * K, xq.data(), K);
        for (int n = 0; n < N; ++n) {
          const float want = (qk.*dot)(w.data() + size_t(n) * wRow, xq.data(), int(wRow));
          if (std::memcmp(&want, &y[size_t(r) * N + size_t(n)], 4) != 0)
            QFAIL(qPrintable(QString("%1 rows=%2 threads=%3 y[%4,%5]")
                                 .arg(QString::fromStdString(ggmlTypeName(type))).arg(rows).arg(threads).arg(r).arg(n)));
        }
      }
    }
  }
}

}  // namespace

class TestQuantTiles : public QObject {
  Q_OBJECT

 private slots:
  void tilesEqualTheDotProducts() {
    checkTile<BlockQ8_0, BlockQ8_0>(GgmlType::Q8_0, GgmlType::Q8_0, &QuantKernels::dotQ8_0, &QuantKernels::tileQ8_0, &q8_0Tile);
    checkTile<BlockQ4_K, BlockQ8_K>(GgmlType::Q4_K, GgmlType::Q8_K, &QuantKernels::dotQ4_K, &QuantKernels::tileQ4_K);
    checkTile<BlockQ4_0, BlockQ8_0>(GgmlType::Q4_0, GgmlType::Q8_0, &QuantKernels::dotQ4_0, &QuantKernels::tileQ4_0, &q4_0Tile);
    checkTile<BlockQ4_1, BlockQ8_0>(GgmlType::Q4_1, GgmlType::Q8_0, &QuantKernels::dotQ4_1, &QuantKernels::tileQ4_1);
    checkTile<BlockQ5_0, BlockQ8_0>(GgmlType::Q5_0, GgmlType::Q8_0, &QuantKernels::dotQ5_0, &QuantKernels::tileQ5_0, &q5_0Tile);
    checkTile<BlockQ5_1, BlockQ8_0>(GgmlType::Q5_1, GgmlType::Q8_0, &QuantKernels::dotQ5_1, &QuantKernels::tileQ5_1);
    checkTile<BlockQ5_K, BlockQ8_K>(GgmlType::Q5_K, GgmlType::Q8_K, &QuantKernels::dotQ5_K, &QuantKernels::tileQ5_K);
    checkTile<BlockQ6_K, BlockQ8_K>(GgmlType::Q6_K, GgmlType::Q8_K, &QuantKernels::dotQ6_K, &QuantKernels::tileQ6_K);
  }

  void decodeRowsEqualTheDotProducts() {
    checkDecodeRows<BlockQ4_0>(GgmlType::Q4_0, &QuantKernels::dotQ4_0, &QuantKernels::rowsQ4_0);
    checkDecodeRows<BlockQ4_1>(GgmlType::Q4_1, &QuantKernels::dotQ4_1, &QuantKernels::rowsQ4_1);
    checkDecodeRows<BlockQ5_0>(GgmlType::Q5_0, &QuantKernels::dotQ5_0, &QuantKernels::rowsQ5_0);
    checkDecodeRows<BlockQ5_1>(GgmlType::Q5_1, &QuantKernels::dotQ5_1, &QuantKernels::rowsQ5_1);
  }

  // Weights of -128 and 127, activations of ±127: the tiles' unsigned offset (x + 128,
  // minus 128 · Σw) must still give the dot's exact integers, on every ISA.
  void q8_0TileAtTheIntegerExtremes() {
    for (Isa isa : supportedIsas()) {
      const QuantKernels& qk = quantKernels(isa);
      {
        const auto tile = &QuantKernels::tileQ8_0;
        const QuantTileDims dims = qk.tileDimsQ8_0;
        for (int nb : {1, 2, 5, 33}) {
          const auto w = extremeQ8_0(dims.cols, nb, nb);
          const auto x = extremeActivations(dims.rows, nb);
          std::vector<const BlockQ8_0*> wp, xp;
          for (int c = 0; c < dims.cols; ++c) wp.push_back(w.data() + size_t(c) * size_t(nb));
          for (int r = 0; r < dims.rows; ++r) xp.push_back(x.data() + size_t(r) * size_t(nb));
          checkTileOutputs<BlockQ8_0, BlockQ8_0>(GgmlType::Q8_0, qk, &QuantKernels::dotQ8_0, tile, dims, wp, xp, nb);
        }
        // And the integers themselves: at d = 1 one block's sum is exact in float.
        for (int xv : {127, -127}) {
          std::vector<BlockQ8_0> w(size_t(dims.cols)), x(size_t(dims.rows));
          for (BlockQ8_0& b : w) b.d = floatToF16(1.0f), std::fill(std::begin(b.qs), std::end(b.qs), int8_t(-128));
          for (BlockQ8_0& b : x) b.d = floatToF16(1.0f), std::fill(std::begin(b.qs), std::end(b.qs), int8_t(xv));
          std::vector<const BlockQ8_0*> wp, xp;
          for (const BlockQ8_0& b : w) wp.push_back(&b);
          for (const BlockQ8_0& b : x) xp.push_back(&b);
          std::vector<float> y(size_t(dims.rows) * size_t(dims.cols), NAN);
          (qk.*tile)(wp.data(), xp.data(), 1, y.data(), size_t(dims.cols));
          for (float v : y) QCOMPARE(v, float(-128 * xv * kQk));
        }
      }
    }
  }

  void gemmOfGgufTypesIsBatchInvariant() {
    checkGemm<BlockQ8_0, BlockQ8_0>(GgmlType::Q8_0, GgmlType::Q8_0, &QuantKernels::dotQ8_0);
    checkGemm<BlockQ4_K, BlockQ8_K>(GgmlType::Q4_K, GgmlType::Q8_K, &QuantKernels::dotQ4_K);
    checkGemm<BlockQ4_0, BlockQ8_0>(GgmlType::Q4_0, GgmlType::Q8_0, &QuantKernels::dotQ4_0);
    checkGemm<BlockQ4_1, BlockQ8_0>(GgmlType::Q4_1, GgmlType::Q8_0, &QuantKernels::dotQ4_1);
    checkGemm<BlockQ5_0, BlockQ8_0>(GgmlType::Q5_0, GgmlType::Q8_0, &QuantKernels::dotQ5_0);
    checkGemm<BlockQ5_1, BlockQ8_0>(GgmlType::Q5_1, GgmlType::Q8_0, &QuantKernels::dotQ5_1);
    checkGemm<BlockQ5_K, BlockQ8_K>(GgmlType::Q5_K, GgmlType::Q8_K, &QuantKernels::dotQ5_K);
    checkGemm<BlockQ6_K, BlockQ8_K>(GgmlType::Q6_K, GgmlType::Q8_K, &QuantKernels::dotQ6_K);
  }
};

QTEST_GUILESS_MAIN(TestQuantTiles)
#include "tst_quant_tiles.moc"
