#include "engine/exec/cpu/gemm_quant.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>

#include "engine/common/dtype.h"
#include "engine/common/error.h"
#include "engine/exec/cpu/quant_kernels.h"
#include "engine/model/quant.h"

namespace lwb {
namespace {

// Input rows per task: their quantized copies (K ≈ 4k: ~4 KiB each) stay in L2 while a
// weight row, in L1, is dotted with each of them.
constexpr int kRowGroup = 64;

// Input rows quantized to one activation type, [numRows, rowBytes].
struct QuantizedRows {
  GgmlType type = GgmlType::Q8_0;
  size_t rowBytes = 0;
  std::vector<uint8_t> bytes;
};

bool isKQuant(GgmlType t) { return t == GgmlType::Q4_K || t == GgmlType::Q5_K || t == GgmlType::Q6_K; }
GgmlType activationTypeFor(GgmlType weight) { return isKQuant(weight) ? GgmlType::Q8_K : GgmlType::Q8_0; }

constexpr GgmlType kKernelTypes[] = {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q4_1, GgmlType::Q5_0,
                                     GgmlType::Q5_1, GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K};

void quantizeRows(ThreadPool& pool, const QuantKernels& qk, const float* x, size_t ldx, int numRows, int K,
                  QuantizedRows& out) {
  out.rowBytes = ggmlRowBytes(out.type, K);
  out.bytes.resize(out.rowBytes * size_t(numRows));
  pool.parallelFor(numRows, [&](int t, int) {
    uint8_t* dst = out.bytes.data() + size_t(t) * out.rowBytes;
    if (out.type == GgmlType::Q8_K) qk.quantizeQ8_K(x + size_t(t) * ldx, reinterpret_cast<BlockQ8_K*>(dst), K);
    else qk.quantizeQ8_0(x + size_t(t) * ldx, reinterpret_cast<BlockQ8_0*>(dst), K);
  });
}

void toFloatRow(const WeightMatrix& w, int r, float* out) {
  const size_t K = size_t(w.cols);
  const char* row = static_cast<const char*>(w.data) + size_t(r) * K * dtypeSize(w.dtype);
  const uint16_t* h = reinterpret_cast<const uint16_t*>(row);
  switch (w.dtype) {
    case DType::F32: std::memcpy(out, row, K * 4); break;
    case DType::BF16: for (size_t k = 0; k < K; ++k) out[k] = bf16ToFloat(h[k]); break;
    case DType::F16: for (size_t k = 0; k < K; ++k) out[k] = halfToFloat(h[k]); break;
    case DType::F8E4M3:
    case DType::F8E5M2: break;  // KV cache types, never a weight's (parseDType refuses them)
  }
}

// A decode's guided chunks (forGuidedColumns) in multiples of 16 columns: the legacy
// types' rows kernels take 8 at a time.
constexpr int kGuidedAlign = 16;

// Columns per task of a batch over 64 rows (a decode's take guided chunks instead):
// ~4 tasks per thread, at most 64 (one L2-sized stripe).
int chooseColBlock(int totalCols, int rowGroups, int numThreads) {
  int block = 64;
  while (block > 4 && int64_t(rowGroups) * ((totalCols + block - 1) / block) < 4 * numThreads) block /= 2;
  return block;
}

// Full dims.rows × dims.cols tiles, single dots for the rest. Every output is the same
// bits whichever of the two computes it (quant_kernels.h).
template <typename WB, typename XB>
void runTileOf(float (*dot)(const WB*, const XB*, int), QuantTileFn<WB, XB> tile, QuantTileDims dims,
               QuantRows<WB, XB> rows, const PackedMatrix& w, const QuantizedRows& xq, int row0,
               int numRows, int col0, int numCols, float* y, size_t ldy) {
  check(dims.rows > 0 && dims.rows <= kQuantTileMax && dims.cols > 0 && dims.cols <= kQuantTileMax,
        "quantized gemm: tile dims out of range");
  const size_t wRowBlocks = size_t(w.cols() / ggmlBlockSize(w.quantType())), xRowBlocks = xq.rowBytes / sizeof(XB);
  const int nb = int(wRowBlocks);
  const WB* wBase = static_cast<const WB*>(w.data());
  const XB* xBase = reinterpret_cast<const XB*>(xq.bytes.data());
  auto wrow = [&](int n) { return wBase + size_t(n) * wRowBlocks; };
  auto xrow = [&](int t) { return xBase + size_t(t) * xRowBlocks; };
  auto out = [&](int t, int n) { return y + size_t(t) * ldy + size_t(n); };
  const int rowEnd = row0 + numRows, colEnd = col0 + numCols;
  const int tiledRowEnd = row0 + numRows / dims.rows * dims.rows;
  const int tiledColEnd = col0 + numCols / dims.cols * dims.cols;
  // Weight rows outermost: they stay in L1 while the row tiles read them, and the x86
  // tiles prefetch the next group's rows as they go (prefetchNextRows).
  for (int n = col0; n < tiledColEnd; n += dims.cols) {
    const WB* ws[kQuantTileMax];
    for (int c = 0; c < dims.cols; ++c) ws[c] = wrow(n + c);
    for (int t = row0; t < tiledRowEnd; t += dims.rows) {
      const XB* xs[kQuantTileMax];
      for (int r = 0; r < dims.rows; ++r) xs[r] = xrow(t + r);
      tile(ws, xs, nb, out(t, n), ldy);
    }
  }
  for (int n = tiledColEnd; n < colEnd; ++n)
    for (int t = row0; t < tiledRowEnd; ++t) *out(t, n) = dot(wrow(n), xrow(t), nb);
  // The rows left over (all of them in a decode): one dot per weight row and input row,
  // weight rows outermost, so that each is read once from memory (then from L1) and each
  // thread streams one row at a time through its contiguous columns. That is the access
  // the hardware prefetchers follow best: a batch-1 decode through 1 × 4 tiles, reading
  // four rows in lockstep, streamed half as fast from DRAM on a 2-core AVX-512 VM
  // (bench_gguf, Q8_0, per CPU time), though it is the faster one with the rows in L2.
  // The legacy types (Q4_0, Q4_1, Q5_0, Q5_1) are the exception: one dot of theirs is
  // bound by its single FMA chain, so their rows kernels take rows.rows weight rows at a
  // time (each output the same bits), fetching the next rows in the order they lie; one
  // call runs all the groups of the task's columns, for each left-over input row.
  int n = col0;
  const int grouped = rows.fn != nullptr ? (colEnd - col0) / rows.rows * rows.rows : 0;
  if (grouped > 0 && tiledRowEnd < rowEnd) {
    for (int t = tiledRowEnd; t < rowEnd; ++t) rows.fn(wrow(n), xrow(t), nb, out(t, n), grouped);
    n += grouped;
  }
  for (; n < colEnd; ++n)
    for (int t = tiledRowEnd; t < rowEnd; ++t) *out(t, n) = dot(wrow(n), xrow(t), nb);
}

void runTile(const QuantKernels& qk, const PackedMatrix& w, const QuantizedRows& xq, int row0, int numRows, int col0,
             int numCols, float* y, size_t ldy) {
  auto run = [&]<typename WB, typename XB>(float (*dot)(const WB*, const XB*, int), QuantTileFn<WB, XB> tile,
                                          QuantTileDims dims = {}, QuantRows<WB, XB> rows = {}) {
    runTileOf(dot, tile, dims, rows, w, xq, row0, numRows, col0, numCols, y, ldy);
  };
  switch (w.quantType()) {
    case GgmlType::Q8_0: return run(qk.dotQ8_0, qk.tileQ8_0, qk.tileDimsQ8_0);
    case GgmlType::Q4_K: return run(qk.dotQ4_K, qk.tileQ4_K);
    case GgmlType::Q4_0: return run(qk.dotQ4_0, qk.tileQ4_0, qk.tileDimsQ4_0, qk.rowsQ4_0);
    case GgmlType::Q4_1: return run(qk.dotQ4_1, qk.tileQ4_1, {}, qk.rowsQ4_1);
    case GgmlType::Q5_0: return run(qk.dotQ5_0, qk.tileQ5_0, qk.tileDimsQ5_0, qk.rowsQ5_0);
    case GgmlType::Q5_1: return run(qk.dotQ5_1, qk.tileQ5_1, {}, qk.rowsQ5_1);
    case GgmlType::Q5_K: return run(qk.dotQ5_K, qk.tileQ5_K);
    case GgmlType::Q6_K: return run(qk.dotQ6_K, qk.tileQ6_K);
    default: throw Error("quantized gemm: no kernel for " + ggmlTypeName(w.quantType()));
  }
}

}  // namespace

GgmlType quantTypeFor(GgmlType asked, int K) {
  if (asked == GgmlType::Q4_K && K % kQkK == 0) return GgmlType::Q4_K;
  if ((asked == GgmlType::Q4_K || asked == GgmlType::Q8_0) && K % kQk == 0) return GgmlType::Q8_0;
  return GgmlType::F32;
}

PackedMatrix quantizeMatrix(ThreadPool& pool, const WeightMatrix& w, GgmlType type, WeightArena* arena) {
  check(type == GgmlType::Q8_0 || type == GgmlType::Q4_K, "quantizeMatrix: cannot store weights as " + ggmlTypeName(type));
  check(w.rows > 0 && w.cols > 0 && w.cols % ggmlBlockSize(type) == 0,
        "quantizeMatrix: " + ggmlTypeName(type) + " needs the row length to be a multiple of " +
            std::to_string(ggmlBlockSize(type)) + ", found " + std::to_string(w.cols));
  const size_t rowBytes = ggmlRowBytes(type, w.cols), bytes = rowBytes * size_t(w.rows);
  PackedMatrix m;
  m.storage_ = arena != nullptr ? arena->allocate(bytes, "quantizeMatrix") : allocateAligned(bytes, "quantizeMatrix");
  const int rowsPerTask = 16;
  pool.parallelFor((w.rows + rowsPerTask - 1) / rowsPerTask, [&](int task, int) {
    std::vector<float> row(size_t(w.cols));
    for (int r = task * rowsPerTask; r < std::min(w.rows, (task + 1) * rowsPerTask); ++r) {
      toFloatRow(w, r, row.data());
      quantizeRow(type, row.data(), m.storage_.get() + size_t(r) * rowBytes, w.cols);
    }
  });
  m.dtype_ = w.dtype;
  m.rows_ = w.rows;
  m.cols_ = w.cols;
  m.bytes_ = bytes;
  m.quantized_ = true;
  m.quantType_ = type;
  return m;
}

bool hasQuantKernels(GgmlType type) {
  return std::find(std::begin(kKernelTypes), std::end(kKernelTypes), type) != std::end(kKernelTypes);
}

std::string quantKernelTypeNames() {
  std::string out;
  for (GgmlType t : kKernelTypes) out += (out.empty() ? "" : ", ") + ggmlTypeName(t);
  return out;
}

PackedMatrix copyQuantizedMatrix(const void* blocks, GgmlType type, int rows, int cols, WeightArena* arena) {
  check(hasQuantKernels(type), "copyQuantizedMatrix: no kernel runs " + ggmlTypeName(type));
  check(rows > 0 && cols > 0 && cols % ggmlBlockSize(type) == 0,
        "copyQuantizedMatrix: " + ggmlTypeName(type) + " needs the row length to be a multiple of " +
            std::to_string(ggmlBlockSize(type)) + ", found " + std::to_string(cols));
  const size_t bytes = ggmlRowBytes(type, cols) * size_t(rows);
  PackedMatrix m;
  m.storage_ = arena != nullptr ? arena->allocate(bytes, "copyQuantizedMatrix") : allocateAligned(bytes, "copyQuantizedMatrix");
  std::memcpy(m.storage_.get(), blocks, bytes);
  m.rows_ = rows;
  m.cols_ = cols;
  m.bytes_ = bytes;
  m.quantized_ = true;
  m.quantType_ = type;
  return m;
}

void gemmQuantized(ThreadPool& pool, Isa isa, const float* x, size_t ldx, int numRows, const std::vector<GemmJob>& jobs) {
  const QuantKernels& qk = quantKernels(isa);
  const int K = jobs.front().w->cols();
  // Per calling thread; the workers see them through these references (a thread_local
  // named inside the task would be the worker's own, empty one).
  thread_local QuantizedRows q8_0Rows{GgmlType::Q8_0, 0, {}}, q8_KRows{GgmlType::Q8_K, 0, {}};
  QuantizedRows &q8_0 = q8_0Rows, &q8_k = q8_KRows;
  bool need8_0 = false, need8_K = false;
  int totalCols = 0;
  for (const GemmJob& j : jobs) {
    check(j.w->isQuantized() && j.w->cols() == K, "gemm: jobs sharing an input must all be quantized with the same K");
    (activationTypeFor(j.w->quantType()) == GgmlType::Q8_K ? need8_K : need8_0) = true;
    totalCols += j.w->rows();
  }
  if (need8_0) quantizeRows(pool, qk, x, ldx, numRows, K, q8_0);
  if (need8_K) quantizeRows(pool, qk, x, ldx, numRows, K, q8_k);
  const int rowGroups = (numRows + kRowGroup - 1) / kRowGroup;
  const auto xqFor = [&](const PackedMatrix& w) -> const QuantizedRows& {
    return activationTypeFor(w.quantType()) == GgmlType::Q8_K ? q8_k : q8_0;
  };
  if (rowGroups == 1 && pool.numThreads() > 1) {  // Q4_K_M decode, 2 threads: 81 → 90 % of the streaming read
    return forGuidedColumns(pool, jobs, kGuidedAlign, [&](const GemmJob& job, int col0, int numCols, int) {
      runTile(qk, *job.w, xqFor(*job.w), 0, numRows, col0, numCols, job.y, job.ldy);
    });
  }
  const int colBlock = chooseColBlock(totalCols, rowGroups, pool.numThreads());
  std::vector<int> firstTask{0};
  for (const GemmJob& j : jobs) firstTask.push_back(firstTask.back() + rowGroups * ((j.w->rows() + colBlock - 1) / colBlock));
  pool.parallelFor(firstTask.back(), [&](int task, int) {
    const size_t j = size_t(std::upper_bound(firstTask.begin(), firstTask.end(), task) - firstTask.begin() - 1);
    const int local = task - firstTask[j], rowGroup = local % rowGroups, cb = local / rowGroups;
    const PackedMatrix& w = *jobs[j].w;
    const QuantizedRows& xq = xqFor(w);
    const int row0 = rowGroup * kRowGroup, col0 = cb * colBlock;
    runTile(qk, w, xq, row0, std::min(kRowGroup, numRows - row0), col0, std::min(colBlock, w.rows() - col0), jobs[j].y,
            jobs[j].ldy);
  });
}

}  // namespace lwb
