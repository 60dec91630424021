#include "engine/exec/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

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

// The query heads that share one KV head (GQA group), for one row.
void attendGroup(const CpuKernels& kn, const AttentionShape& s, const RowPosition& row, int kvHead, const float* q,
                 const KvLayer& cache, float* out, float* scratch) {
  const int group = s.numHeads / s.numKvHeads, d = s.headDim;
  const size_t bytes = dtypeSize(cache.type);
  PagedKv kv;
  kv.blockTable = row.blockTable;
  kv.blockSize = s.blockSize;
  kv.type = cache.type;
  kv.k = static_cast<const char*>(cache.k) + kBlockOffset(s, 0, kvHead) * bytes;
  kv.kBlockStride = size_t(s.numKvHeads) * size_t(d) * size_t(s.blockSize);
  kv.v = static_cast<const char*>(cache.v) + size_t(kvHead) * size_t(d) * bytes;
  kv.ldv = size_t(s.numKvHeads) * size_t(d);
  kv.vBlockStride = size_t(s.blockSize) * kv.ldv;
  const size_t h0 = size_t(kvHead) * size_t(group) * size_t(d);
  kn.attendRow(q + h0, group, d, kv, row.pos + 1, float(1.0 / std::sqrt(double(d))), scratch, out + h0);
}

inline void storeKv(float* to, float x) { *to = x; }
inline void storeKv(uint16_t* to, float x) { *to = floatToBf16(x); }
inline void storeKv(Fp8E4m3* to, float x) { to->bits = floatToFp8E4m3(x); }
inline void storeKv(Fp8E5m2* to, float x) { to->bits = floatToFp8E5m2(x); }

template <typename T>
void writeKvRowT(const AttentionShape& s, const RowPosition& row, const float* k, const float* v, const KvLayer& cache) {
  const size_t kvSize = size_t(s.numKvHeads) * size_t(s.headDim), d = size_t(s.headDim);
  const int pos = row.pos;
  const size_t block = size_t(row.blockTable[pos / s.blockSize]), slot = size_t(pos % s.blockSize);
  for (int h = 0; h < s.numKvHeads; ++h) {
    T* kt = static_cast<T*>(cache.k) + kBlockOffset(s, block, h) + slot;
    const float* kr = k + size_t(h) * d;
    for (size_t i = 0; i < d; ++i) storeKv(kt + i * size_t(s.blockSize), kr[i]);
  }
  T* vt = static_cast<T*>(cache.v) + vOffset(s, row.blockTable, pos, 0);
  if constexpr (std::is_same_v<T, float>) std::memcpy(vt, v, kvSize * sizeof(float));
  else
    for (size_t i = 0; i < kvSize; ++i) storeKv(vt + i, v[i]);
}

}  // namespace

void writeKvRow(const AttentionShape& s, const RowPosition& row, const float* k, const float* v, const KvLayer& cache) {
  switch (cache.type) {
    case DType::BF16: return writeKvRowT<uint16_t>(s, row, k, v, cache);
    case DType::F8E4M3: return writeKvRowT<Fp8E4m3>(s, row, k, v, cache);
    case DType::F8E5M2: return writeKvRowT<Fp8E5m2>(s, row, k, v, cache);
    default: return writeKvRowT<float>(s, row, k, v, cache);
  }
}

void writeKvCache(const AttentionShape& s, const std::vector<RowPosition>& rows, const float* k, const float* v,
                  const KvLayer& cache) {
  const size_t kvSize = size_t(s.numKvHeads) * size_t(s.headDim);
  for (size_t r = 0; r < rows.size(); ++r) writeKvRow(s, rows[r], k + r * kvSize, v + r * kvSize, cache);
}

void reserveAttentionScratch(int numThreads, int groupSize, int maxLen, std::vector<std::vector<float>>& scratch) {
  const size_t need = (scoreStride(maxLen) + 1) * size_t(groupSize);  // scores + 1/sums
  if (scratch.size() < size_t(numThreads)) scratch.resize(size_t(numThreads));
  for (std::vector<float>& buf : scratch)
    if (buf.size() < need) buf.resize(need);
}

void pagedAttention(ThreadPool& pool, const CpuKernels& kernels, const AttentionShape& s,
                    const std::vector<RowPosition>& rows, const float* q, const KvLayer& cache, float* out,
                    std::vector<std::vector<float>>& scratch) {
  int maxLen = 0;
  for (const RowPosition& r : rows) maxLen = r.pos + 1 > maxLen ? r.pos + 1 : maxLen;
  reserveAttentionScratch(pool.numThreads(), s.numHeads / s.numKvHeads, maxLen, scratch);
  const size_t qSize = size_t(s.numHeads) * size_t(s.headDim);
  const int numTasks = int(rows.size()) * s.numKvHeads;
  pool.parallelFor(numTasks, [&](int task, int thread) {
    const size_t r = size_t(task / s.numKvHeads);
    attendGroup(kernels, s, rows[r], task % s.numKvHeads, q + r * qSize, cache, out + r * qSize,
                scratch[size_t(thread)].data());
  });
}

}  // namespace lwb
