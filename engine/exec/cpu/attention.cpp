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

// A run of rows of one sequence at consecutive positions (a prefill chunk) over a bf16 or
// FP8 cache: run alone, each row would widen every cached key and value it reads again.
// Instead a task of up to kRowsPerWideTask of its rows widens positions 0..(its last row's)
// of one KV head once into f32 (thread scratch, one block of `len` slots in the cache's
// own layout) and runs the f32 kernels over that for each row: the same values (widening
// is exact) through the same operations in the same order as the cache's own kernels, so
// the same bits whatever the batch (tst_kv_attention_dtypes).
constexpr int kRowsPerWideTask = 64, kMinRowsToWiden = 4;

struct Task {
  int firstRow = 0, numRows = 1, kvHead = 0;
};

// n elements of the cache's type from element `first` of base, widened into dst by the
// ISA's widenKv (the values its attendRow reads).
void widenRun(const CpuKernels& kn, DType type, const void* base, size_t first, size_t n, float* dst) {
  kn.widenKv(type, static_cast<const char*>(base) + first * dtypeSize(type), n, dst);
}

// K of positions [0, n) of kvHead as [headDim][len] and V as [len][headDim], in f32: per
// block the slots of each dimension of K, per position the dimensions of V (contiguous
// in the cache).
void widenHead(const CpuKernels& kn, const AttentionShape& s, const int32_t* blockTable, int n, int kvHead,
               const KvLayer& cache, size_t len, float* k, float* v) {
  const size_t d = size_t(s.headDim), bs = size_t(s.blockSize);
  for (int j0 = 0; j0 < n; j0 += s.blockSize) {
    const size_t k0 = kBlockOffset(s, size_t(blockTable[j0 / s.blockSize]), kvHead);
    const size_t slots = std::min(bs, size_t(n - j0));
    for (size_t i = 0; i < d; ++i) widenRun(kn, cache.type, cache.k, k0 + i * bs, slots, k + i * len + size_t(j0));
  }
  for (int j = 0; j < n; ++j) widenRun(kn, cache.type, cache.v, vOffset(s, blockTable, j, kvHead), d, v + size_t(j) * d);
}

void runWideTask(const CpuKernels& kn, const AttentionShape& s, const std::vector<RowPosition>& rows, const Task& t,
                 const float* q, const KvLayer& cache, float* out, float* scratch) {
  const RowPosition& last = rows[size_t(t.firstRow + t.numRows - 1)];
  const int n = last.pos + 1;
  const size_t len = scoreStride(n), d = size_t(s.headDim);
  float* k = scratch;
  float* v = k + len * d;
  float* rest = v + len * d;
  widenHead(kn, s, last.blockTable, n, t.kvHead, cache, len, k, v);
  static const int32_t kOneBlock = 0;
  const AttentionShape wide{s.numHeads / s.numKvHeads, 1, s.headDim, int(len)};  // one KV head's group
  for (int r = t.firstRow; r < t.firstRow + t.numRows; ++r) {
    const size_t qSize = size_t(s.numHeads) * d;
    const size_t h0 = size_t(t.kvHead) * size_t(s.numHeads / s.numKvHeads) * d;
    attendGroup(kn, wide, {&kOneBlock, rows[size_t(r)].pos}, 0, q + size_t(r) * qSize + h0, {k, v, DType::F32},
                out + size_t(r) * qSize + h0, rest);
  }
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
  forKvElement(cache.type, [&]<typename T>() { writeKvRowT<T>(s, row, k, v, cache); });
}

void writeKvCache(const AttentionShape& s, const std::vector<RowPosition>& rows, const float* k, const float* v,
                  const KvLayer& cache) {
  const size_t kvSize = size_t(s.numKvHeads) * size_t(s.headDim);
  for (size_t r = 0; r < rows.size(); ++r) writeKvRow(s, rows[r], k + r * kvSize, v + r * kvSize, cache);
}

void reserveAttentionScratch(int numThreads, int groupSize, int maxLen, std::vector<std::vector<float>>& scratch,
                             int widenedHeadDim) {
  size_t need = (scoreStride(maxLen) + 1) * size_t(groupSize);  // scores + 1/sums
  need += 2 * scoreStride(maxLen) * size_t(std::max(0, widenedHeadDim));  // a wide task's K and V
  if (scratch.size() < size_t(numThreads)) scratch.resize(size_t(numThreads));
  for (std::vector<float>& buf : scratch)
    if (buf.size() < need) buf.resize(need);
}

namespace {

// Grows the scratch for the longest of `rows` (reserveAttentionScratch).
void reserveForRows(const ThreadPool& pool, const AttentionShape& s, const std::vector<RowPosition>& rows,
                    std::vector<std::vector<float>>& scratch, int widenedHeadDim) {
  int maxLen = 0;
  for (const RowPosition& r : rows) maxLen = r.pos + 1 > maxLen ? r.pos + 1 : maxLen;
  reserveAttentionScratch(pool.numThreads(), s.numHeads / s.numKvHeads, maxLen, scratch, widenedHeadDim);
}

}  // namespace

void pagedAttention(ThreadPool& pool, const CpuKernels& kernels, const AttentionShape& s,
                    const std::vector<RowPosition>& rows, const float* q, const KvLayer& cache, float* out,
                    std::vector<std::vector<float>>& scratch) {
  const bool widen = cache.type != DType::F32;
  reserveForRows(pool, s, rows, scratch, widen ? s.headDim : 0);
  const size_t qSize = size_t(s.numHeads) * size_t(s.headDim);
  if (!widen) {
    pool.parallelFor(int(rows.size()) * s.numKvHeads, [&](int task, int thread) {
      const size_t r = size_t(task / s.numKvHeads);
      attendGroup(kernels, s, rows[r], task % s.numKvHeads, q + r * qSize, cache, out + r * qSize,
                  scratch[size_t(thread)].data());
    });
    return;
  }
  std::vector<Task> tasks;  // single rows, and runs of kMinRowsToWiden..kRowsPerWideTask rows
  tasks.reserve(rows.size() * size_t(s.numKvHeads));
  for (size_t r = 0; r < rows.size();) {
    size_t end = r + 1;
    while (end < rows.size() && end - r < size_t(kRowsPerWideTask) && rows[end].blockTable == rows[r].blockTable &&
           rows[end].pos == rows[end - 1].pos + 1)
      ++end;
    if (end - r < size_t(kMinRowsToWiden)) end = r + 1;
    for (int h = 0; h < s.numKvHeads; ++h) tasks.push_back({int(r), int(end - r), h});
    r = end;
  }
  pool.parallelFor(int(tasks.size()), [&](int i, int thread) {
    const Task& t = tasks[size_t(i)];
    float* buf = scratch[size_t(thread)].data();
    if (t.numRows > 1) return runWideTask(kernels, s, rows, t, q, cache, out, buf);
    const size_t r = size_t(t.firstRow);
    attendGroup(kernels, s, rows[r], t.kvHead, q + r * qSize, cache, out + r * qSize, buf);
  });
}

void pagedAttentionPerRow(ThreadPool& pool, const CpuKernels& kernels, const AttentionShape& s,
                          const std::vector<RowPosition>& rows, const float* q, const KvLayer& cache, float* out,
                          std::vector<std::vector<float>>& scratch, const std::function<void(int row)>& before) {
  reserveForRows(pool, s, rows, scratch, 0);  // single rows: nothing is widened
  const size_t qSize = size_t(s.numHeads) * size_t(s.headDim);
  pool.parallelFor(int(rows.size()), [&](int task, int thread) {
    const size_t r = size_t(task);
    before(task);
    for (int h = 0; h < s.numKvHeads; ++h)
      attendGroup(kernels, s, rows[r], h, q + r * qSize, cache, out + r * qSize, scratch[size_t(thread)].data());
  });
}

}  // namespace lwb
