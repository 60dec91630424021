#include "engine/exec/cpu/attention.h"

#include <cmath>
#include <cstring>

namespace lwb {
namespace {

inline size_t slotOffset(const AttentionShape& s, const int32_t* blockTable, int pos, int kvHead) {
  const size_t block = size_t(blockTable[pos / s.blockSize]);
  const size_t slot = block * size_t(s.blockSize) + size_t(pos % s.blockSize);
  return (slot * size_t(s.numKvHeads) + size_t(kvHead)) * size_t(s.headDim);
}

// The query heads that share one KV head (GQA group), for one row.
void attendGroup(const CpuKernels& kn, const AttentionShape& s, const RowPosition& row, int kvHead, const float* q,
                 const KvLayer& cache, float* out, float* scratch) {
  const int group = s.numHeads / s.numKvHeads, d = s.headDim, n = row.pos + 1;
  const float scale = float(1.0 / std::sqrt(double(d)));
  const int h0 = kvHead * group;
  float* invSum = scratch;           // [group]
  float* scores = scratch + group;   // [group, n]
  for (int j = 0; j < n; ++j) {
    const float* kj = cache.k + slotOffset(s, row.blockTable, j, kvHead);
    for (int g = 0; g < group; ++g) scores[size_t(g) * size_t(n) + size_t(j)] = kn.dot(q + size_t(h0 + g) * size_t(d), kj, d) * scale;
  }
  for (int g = 0; g < group; ++g) {
    float* sg = scores + size_t(g) * size_t(n);
    float maxScore = sg[0];
    for (int j = 1; j < n; ++j) maxScore = sg[j] > maxScore ? sg[j] : maxScore;
    invSum[size_t(g)] = 1.0f / kn.expAndSum(sg, n, maxScore);
    std::memset(out + size_t(h0 + g) * size_t(d), 0, size_t(d) * sizeof(float));
  }
  for (int j = 0; j < n; ++j) {
    const float* vj = cache.v + slotOffset(s, row.blockTable, j, kvHead);
    for (int g = 0; g < group; ++g) kn.axpy(scores[size_t(g) * size_t(n) + size_t(j)], vj, out + size_t(h0 + g) * size_t(d), d);
  }
  for (int g = 0; g < group; ++g) {
    float* o = out + size_t(h0 + g) * size_t(d);
    for (int i = 0; i < d; ++i) o[i] *= invSum[size_t(g)];
  }
}

}  // namespace

void writeKvCache(const AttentionShape& s, const std::vector<RowPosition>& rows, const float* k, const float* v,
                  const KvLayer& cache) {
  const size_t kvSize = size_t(s.numKvHeads) * size_t(s.headDim);
  for (size_t r = 0; r < rows.size(); ++r) {
    const size_t off = slotOffset(s, rows[r].blockTable, rows[r].pos, 0);
    std::memcpy(cache.k + off, k + r * kvSize, kvSize * sizeof(float));
    std::memcpy(cache.v + off, v + r * kvSize, kvSize * sizeof(float));
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
