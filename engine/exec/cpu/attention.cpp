#include "engine/exec/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lwb {
namespace {

// V: [numBlocks, blockSize, numKvHeads, headDim]; offset of (position, kvHead).
inline size_t vOffset(const AttentionShape& s, const int32_t* blockTable, int pos, int kvHead) {
  const size_t block = size_t(blockTable[pos / s.blockSize]);
  const size_t slot = block * size_t(s.blockSize) + size_t(pos % s.blockSize);
  return (slot * size_t(s.numKvHeads) + size_t(kvHead)) * size_t(s.headDim);
}

// K: [numBlocks, numKvHeads, headDim, blockSize]; offset of (block, kvHead, dim 0, slot 0).
inline size_t kBlockOffset(const AttentionShape& s, size_t block, int kvHead) {
  return (block * size_t(s.numKvHeads) + size_t(kvHead)) * size_t(s.headDim) * size_t(s.blockSize);
}

// The query heads that share one KV head (GQA group), for one row; keys block by block
// in position order.
void attendGroup(const CpuKernels& kn, const AttentionShape& s, const RowPosition& row, int kvHead, const float* q,
                 const KvLayer& cache, float* out, float* scratch) {
  const int group = s.numHeads / s.numKvHeads, d = s.headDim, n = row.pos + 1, bs = s.blockSize;
  const float scale = float(1.0 / std::sqrt(double(d)));
  const int h0 = kvHead * group;
  float* invSum = scratch;           // [group]
  float* scores = scratch + group;   // [group, n]
  const float* qg = q + size_t(h0) * size_t(d);
  float* og = out + size_t(h0) * size_t(d);
  for (int j0 = 0; j0 < n; j0 += bs) {
    const float* kt = cache.k + kBlockOffset(s, size_t(row.blockTable[j0 / bs]), kvHead);
    kn.scoresT(qg, group, d, kt, size_t(bs), std::min(bs, n - j0), scale, scores + j0, size_t(n));
  }
  for (int g = 0; g < group; ++g) {
    float* sg = scores + size_t(g) * size_t(n);
    float maxScore = sg[0];
    for (int j = 1; j < n; ++j) maxScore = sg[j] > maxScore ? sg[j] : maxScore;
    invSum[size_t(g)] = 1.0f / kn.expAndSum(sg, n, maxScore);
  }
  std::memset(og, 0, size_t(group) * size_t(d) * sizeof(float));
  const size_t ldv = size_t(s.numKvHeads) * size_t(d);
  for (int j0 = 0; j0 < n; j0 += bs)
    kn.accumulateRows(scores + j0, size_t(n), group, cache.v + vOffset(s, row.blockTable, j0, kvHead), ldv,
                      std::min(bs, n - j0), d, og);
  for (int g = 0; g < group; ++g) {
    float* o = og + size_t(g) * size_t(d);
    for (int i = 0; i < d; ++i) o[i] *= invSum[size_t(g)];
  }
}

}  // namespace

void writeKvCache(const AttentionShape& s, const std::vector<RowPosition>& rows, const float* k, const float* v,
                  const KvLayer& cache) {
  const size_t kvSize = size_t(s.numKvHeads) * size_t(s.headDim), d = size_t(s.headDim);
  for (size_t r = 0; r < rows.size(); ++r) {
    const int pos = rows[r].pos;
    const size_t block = size_t(rows[r].blockTable[pos / s.blockSize]), slot = size_t(pos % s.blockSize);
    for (int h = 0; h < s.numKvHeads; ++h) {
      float* kt = cache.k + kBlockOffset(s, block, h) + slot;
      const float* kr = k + r * kvSize + size_t(h) * d;
      for (size_t i = 0; i < d; ++i) kt[i * size_t(s.blockSize)] = kr[i];
    }
    std::memcpy(cache.v + vOffset(s, rows[r].blockTable, pos, 0), v + r * kvSize, kvSize * sizeof(float));
  }
}

void pagedAttention(ThreadPool& pool, const CpuKernels& kernels, const AttentionShape& s,
                    const std::vector<RowPosition>& rows, const float* q, const KvLayer& cache, float* out,
                    std::vector<std::vector<float>>& scratch) {
  int maxLen = 0;
  for (const RowPosition& r : rows) maxLen = r.pos + 1 > maxLen ? r.pos + 1 : maxLen;
  const size_t need = size_t(maxLen + 1) * size_t(s.numHeads / s.numKvHeads);  // scores + 1/sums
  scratch.resize(size_t(pool.numThreads()));
  for (std::vector<float>& buf : scratch)
    if (buf.size() < need) buf.resize(need);
  const size_t qSize = size_t(s.numHeads) * size_t(s.headDim);
  const int numTasks = int(rows.size()) * s.numKvHeads;
  pool.parallelFor(numTasks, [&](int task, int thread) {
    const size_t r = size_t(task / s.numKvHeads);
    attendGroup(kernels, s, rows[r], task % s.numKvHeads, q + r * qSize, cache, out + r * qSize,
                scratch[size_t(thread)].data());
  });
}

}  // namespace lwb
