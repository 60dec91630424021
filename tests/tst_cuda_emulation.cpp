// What of the CUDA backend can be checked without a GPU: the real batch planner
// (engine/exec/cuda/batch_plan.cpp, plain C++) driving a CPU emulation of the attention
// kernel's algorithm (attention.cu: key tiles of 32, online softmax, head dims padded to
// a multiple of 32 with zeros, flash-decoding partitions and their combine) against
// naive attention, over the kernel-parity cases (head dims 40, 80, 96, 128, 256 and GQA
// groups up to 32 included); the metadata padding a CUDA-graph bucket relies on; and
// the plugin's ABI check (a built plugin must load: same version and layout hash).
// The emulation is a model of the kernel, not the kernel: the kernel itself is checked
// by tst_cuda_kernels on a device.
#include <QtTest>
#undef slots  // Qt's keyword; BatchPlan and MetaLayout have a field of that name (Q_SLOTS below)

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>

#include "engine/exec/cuda/batch_plan.h"
#include "engine/exec/cuda/testing/kernel_parity.h"
#include "engine/exec/cuda_loader.h"

using namespace lwb;
using namespace lwb::cuda;

namespace {

constexpr int kKeysPerTile = 32;  // as attention.cu

struct Problem {
  int heads = 0, kvHeads = 0, d = 0, bs = 0, numBlocks = 0;
  ForwardBatch batch;
  std::vector<float> q, kc, vc;  // q [rows, heads*d]; caches [slots, kvHeads*d]
};

Problem makeProblem(const std::vector<int>& dims) {
  Problem p;
  p.heads = dims[0];
  p.kvHeads = dims[1];
  p.d = dims[2];
  p.bs = dims[3];
  const int numSeqs = int(dims.size() - 5) / 2;
  int maxBlocks = 0;
  for (int s = 0; s < numSeqs; ++s) maxBlocks = std::max(maxBlocks, (dims[5 + 2 * s] + dims[6 + 2 * s] + p.bs - 1) / p.bs);
  p.numBlocks = numSeqs * maxBlocks + 3;
  std::vector<int32_t> perm(static_cast<size_t>(p.numBlocks));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(9));
  for (int s = 0; s < numSeqs; ++s) {
    SeqSlice slice;
    slice.requestId = s;
    slice.firstRow = p.batch.numRows();
    slice.numCachedTokens = dims[5 + 2 * s];
    slice.numTokens = dims[6 + 2 * s];
    slice.blockTable.assign(perm.begin() + s * maxBlocks, perm.begin() + (s + 1) * maxBlocks);
    p.batch.tokenIds.resize(p.batch.tokenIds.size() + size_t(slice.numTokens), 0);
    p.batch.seqs.push_back(slice);
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  p.q.resize(size_t(p.batch.numRows()) * p.heads * p.d);
  p.kc.resize(size_t(p.numBlocks) * p.bs * p.kvHeads * p.d);
  p.vc.resize(p.kc.size());
  for (auto* v : {&p.q, &p.kc, &p.vc})
    for (float& x : *v) x = u(rng);
  return p;
}

// One warp of attentionKernel: (row, head) of work item w, as the kernel computes it.
struct WarpResult {
  std::vector<float> acc;  // [D], unnormalised
  float m = -INFINITY, l = 0.f;
};

WarpResult emulateWarp(const Problem& p, const BatchPlan& plan, const AttnWork& w, int rowInTile, int head) {
  const int hd = p.d, D = (hd + 31) / 32 * 32, kvHead = head / (p.heads / p.kvHeads);
  const int row = w.firstRow + rowInTile, pos = w.firstPos + rowInTile;
  const int kvEnd = std::min(w.kvEnd, w.firstPos + w.numRows);
  const float scale = 1.f / std::sqrt(float(hd));
  std::vector<float> sQ(size_t(D), 0.f);
  for (int d = 0; d < hd; ++d) sQ[size_t(d)] = p.q[(size_t(row) * p.heads + head) * hd + d] * scale;
  WarpResult r;
  r.acc.assign(size_t(D), 0.f);
  const size_t kvStride = size_t(p.kvHeads) * hd;
  for (int t0 = w.kvBegin; t0 < kvEnd; t0 += kKeysPerTile) {
    std::vector<float> sK(size_t(kKeysPerTile) * D, 0.f), sV(sK.size(), 0.f);
    for (int j = 0; j < kKeysPerTile; ++j)
      for (int d = 0; d < hd && t0 + j < kvEnd; ++d) {
        const int kp = t0 + j, block = plan.blockTables[size_t(w.btOffset + kp / p.bs)];
        const size_t off = (size_t(block) * p.bs + kp % p.bs) * kvStride + size_t(kvHead) * hd + d;
        sK[size_t(j) * D + d] = p.kc[off];
        sV[size_t(j) * D + d] = p.vc[off];
      }
    float s[kKeysPerTile], tileMax = -INFINITY;
    for (int j = 0; j < kKeysPerTile; ++j) {
      const bool valid = t0 + j < kvEnd && t0 + j <= pos;
      s[j] = -INFINITY;
      if (valid) {
        s[j] = 0.f;
        for (int d = 0; d < D; ++d) s[j] += sQ[size_t(d)] * sK[size_t(j) * D + d];
      }
      tileMax = std::max(tileMax, s[j]);
    }
    if (tileMax == -INFINITY) continue;
    const float newM = std::max(r.m, tileMax), corr = std::exp(r.m - newM);
    float pj[kKeysPerTile], sum = 0.f;
    for (int j = 0; j < kKeysPerTile; ++j) sum += (pj[j] = s[j] == -INFINITY ? 0.f : std::exp(s[j] - newM));
    r.l = r.l * corr + sum;
    for (float& a : r.acc) a *= corr;
    for (int j = 0; j < std::min(kKeysPerTile, kvEnd - t0); ++j)
      for (int d = 0; d < D; ++d) r.acc[size_t(d)] += pj[j] * sV[size_t(j) * D + d];
    r.m = newM;
  }
  return r;
}

// The whole launch sequence of one layer's attention: single items, tiles, combine.
std::vector<float> emulateAttention(const Problem& p, const BatchPlan& plan) {
  const int hd = p.d;
  std::vector<float> out(p.q.size(), NAN);
  std::vector<WarpResult> partials(size_t(plan.numPartials) * p.heads);
  for (const std::vector<AttnWork>* items : {&plan.single, &plan.tiles})
    for (const AttnWork& w : *items)
      for (int rowInTile = 0; rowInTile < w.numRows; ++rowInTile)
        for (int head = 0; head < p.heads; ++head) {
          WarpResult r = emulateWarp(p, plan, w, rowInTile, head);
          if (w.partial >= 0) {
            partials[size_t(w.partial) * p.heads + head] = std::move(r);
            continue;
          }
          for (int d = 0; d < hd; ++d)
            out[(size_t(w.firstRow + rowInTile) * p.heads + head) * hd + d] = r.acc[size_t(d)] * (1.f / r.l);
        }
  for (const CombineItem& it : plan.combine)
    for (int head = 0; head < p.heads; ++head) {
      float maxM = -INFINITY;
      for (int q = 0; q < it.numParts; ++q) maxM = std::max(maxM, partials[size_t(it.partBase + q) * p.heads + head].m);
      for (int d = 0; d < hd; ++d) {
        float sum = 0.f, acc = 0.f;
        for (int q = 0; q < it.numParts; ++q) {
          const WarpResult& r = partials[size_t(it.partBase + q) * p.heads + head];
          const float wgt = std::exp(r.m - maxM);
          sum += r.l * wgt;
          acc += r.acc[size_t(d)] * wgt;
        }
        out[(size_t(it.row) * p.heads + head) * hd + d] = acc / sum;
      }
    }
  return out;
}

std::vector<double> naiveAttention(const Problem& p) {
  const int hd = p.d, group = p.heads / p.kvHeads;
  std::vector<double> out(p.q.size());
  for (const SeqSlice& s : p.batch.seqs)
    for (int i = 0; i < s.numTokens; ++i) {
      const int row = s.firstRow + i, pos = s.numCachedTokens + i;
      for (int h = 0; h < p.heads; ++h) {
        auto at = [&](const std::vector<float>& cache, int kp, int e) {
          const size_t slot = size_t(s.blockTable[size_t(kp / p.bs)]) * p.bs + kp % p.bs;
          return double(cache[(slot * p.kvHeads + h / group) * hd + e]);
        };
        std::vector<double> w(size_t(pos) + 1);
        double mx = -INFINITY, sum = 0;
        for (int k = 0; k <= pos; ++k) {
          double sc = 0;
          for (int e = 0; e < hd; ++e) sc += double(p.q[(size_t(row) * p.heads + h) * hd + e]) * at(p.kc, k, e);
          mx = std::max(mx, w[size_t(k)] = sc / std::sqrt(double(hd)));
        }
        for (double& x : w) sum += (x = std::exp(x - mx));
        for (int e = 0; e < hd; ++e) {
          double o = 0;
          for (int k = 0; k <= pos; ++k) o += w[size_t(k)] / sum * at(p.vc, k, e);
          out[(size_t(row) * p.heads + h) * hd + e] = o;
        }
      }
    }
  return out;
}

}  // namespace

class TestCudaEmulation : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void attentionAlgorithm_data() {
    QTest::addColumn<QVector<int>>("dims");
    for (const devcheck::KernelCase& c : devcheck::kernelCases())
      if (c.kernel == "attention" && c.dtype == LWB_CUDA_BF16)
        QTest::newRow(c.name.substr(5).c_str()) << QVector<int>(c.dims.begin(), c.dims.end());
  }
  // The plan and the kernel's arithmetic, in float as on the device, against double.
  void attentionAlgorithm() {
    QFETCH(QVector<int>, dims);
    const std::vector<int> d(dims.begin(), dims.end());
    const Problem p = makeProblem(d);
    const int group = p.heads / p.kvHeads, rowsPerTile = std::max(1, 16 / group);
    QVERIFY(rowsPerTile * group <= 32);  // the kernel's warp cap
    const BatchPlan plan = planBatch(p.batch, PlanLimits{p.bs, p.numBlocks, 1 << 20, 1, rowsPerTile, d[4]});
    const std::vector<float> got = emulateAttention(p, plan);
    const std::vector<double> ref = naiveAttention(p);
    for (size_t i = 0; i < got.size(); ++i)
      QVERIFY2(std::fabs(got[i] - ref[i]) <= 2e-5 + 2e-5 * std::fabs(ref[i]),
               qPrintable(QString("element %1: %2 vs %3").arg(i).arg(got[i]).arg(ref[i])));
  }

  // A decode batch padded to a graph bucket: the padded rows read token 0 at position 0,
  // write no cache slot (-1) and point their logits at row 0; the counts stay exact.
  void metadataPaddedToBucket() {
    ForwardBatch batch;
    for (int s = 0; s < 5; ++s) {
      batch.seqs.push_back({s, s, 1, 20 + s, {2 * s, 2 * s + 1}, true});
      batch.tokenIds.push_back(7 + s);
    }
    const BatchPlan plan = planBatch(batch, PlanLimits{16, 10, 1024, 100, 16, 512});
    QVERIFY(plan.decodeOnly);
    const MetaLayout m = MetaLayout::withCapacities(8, 8, 16, 8, 1, 8);
    std::vector<int32_t> meta(size_t(m.totalInts), 12345);
    writeMeta(plan, m, 8, 8, meta.data());
    QCOMPARE(meta[0], 5);  // numRows: kernels skip rows past it
    QCOMPARE(meta[4], 5);  // numLogits
    for (int r = 5; r < 8; ++r) {
      QCOMPARE(meta[size_t(m.tokenIds + r)], 0);
      QCOMPARE(meta[size_t(m.positions + r)], 0);
      QCOMPARE(meta[size_t(m.slots + r)], -1);
      QCOMPARE(meta[size_t(m.logitRows + r)], 0);
    }
    QCOMPARE(meta[size_t(m.slots + 4)], 9 * 16 + 8);  // seq 4: position 24 = offset 8 of its block 9
  }

  // The built plugin (this build tree's, when CUDA is on) must pass the loader's ABI
  // check: same version, same layout hash. Needs no device.
  void builtPluginPassesAbiCheck() {
    const std::string path = std::string(LWB_BINARY_DIR) + "/lib/liblwb_cuda.so";
    if (!std::filesystem::exists(path)) QSKIP("the CUDA plugin is not built in this tree");
    qputenv("LWB_CUDA_PLUGIN", QByteArray::fromStdString(path));
    std::string reason;
    const cudaplugin::Plugin* plugin = cudaplugin::openPlugin(&reason);
    QVERIFY2(plugin != nullptr, reason.c_str());
    QVERIFY(lwbCudaLayoutHash() != 0);
  }
};

QTEST_GUILESS_MAIN(TestCudaEmulation)
#include "tst_cuda_emulation.moc"
