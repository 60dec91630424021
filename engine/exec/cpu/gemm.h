#pragma once
// Multithreaded GEMM/GEMV over weights in their file dtype: y[t, n] = x[t, :] · W[n, :].
// Several GEMMs that share the input rows (q/k/v, gate/up) run in one dispatch. Threads
// split the work by output tiles only, never along K, so the result of every element is
// independent of the batch size and the thread count.
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "engine/exec/cpu/kernels.h"
#include "engine/exec/cpu/thread_pool.h"
#include "engine/exec/cpu/weight_arena.h"
#include "engine/model/quant_types.h"

namespace lwb {

struct TensorView;

struct WeightMatrix {
  const void* data = nullptr;  // [rows, cols] row-major
  DType dtype = DType::F32;
  int rows = 0;  // N (output features)
  int cols = 0;  // K (input features)
};

// A Linear layer's weight [out, in]; throws lwb::Error unless the view is 2-D.
WeightMatrix weightMatrix(const TensorView& view);

// A weight matrix repacked once into K-major panels of kPanel columns, in its own dtype
// (layout in kernels.h, GemmArgs): a tile streams one contiguous block per panel. BF16
// panels hold k pairs (a 32-bit lane = one column's k and k + 1, K padded to even with a
// zero), so that a tile converts 32 weights with one shift and one mask.
// Or, when quantized (gemm_quant.h), its rows as ggml blocks, row after row.
class PackedMatrix {
 public:
  PackedMatrix() = default;
  const void* data() const { return storage_.get(); }
  DType dtype() const { return dtype_; }
  int rows() const { return rows_; }  // N
  int cols() const { return cols_; }  // K
  size_t bytes() const { return bytes_; }
  bool isQuantized() const { return quantized_; }
  GgmlType quantType() const { return quantType_; }  // when isQuantized()

 private:
  friend PackedMatrix packMatrix(ThreadPool& pool, const WeightMatrix& w, WeightArena* arena);
  friend PackedMatrix quantizeMatrix(ThreadPool& pool, const WeightMatrix& w, GgmlType type, WeightArena* arena);
  friend PackedMatrix copyQuantizedMatrix(const void* blocks, GgmlType type, int rows, int cols, WeightArena* arena);
  std::shared_ptr<uint8_t> storage_;  // a piece of an arena's chunk, or its own allocation
  DType dtype_ = DType::F32;
  int rows_ = 0, cols_ = 0;
  size_t bytes_ = 0;
  bool quantized_ = false;
  GgmlType quantType_ = GgmlType::F32;
};

// Copies w into panels (64-byte aligned; in `arena` when one is given), the panels split
// over the pool's threads.
PackedMatrix packMatrix(ThreadPool& pool, const WeightMatrix& w, WeightArena* arena = nullptr);

struct GemmJob {
  const PackedMatrix* w = nullptr;
  float* y = nullptr;  // [numRows, ldy], columns [0, w.rows) written
  size_t ldy = 0;
};

// A decode step's GEMM over the pool (a batch of one row group): the jobs' columns end to
// end, each job's rounded up to `align`, in guided chunks, each 1 / (2 · threads) of the
// columns left (a multiple of align, at least align): a thread streams long runs of
// weight rows and claims a few times a GEMM, not once per small task (each claim moves a
// contended cache line), and the last chunks are small, so the threads finish together.
// fn(job, col0, numCols, nextCol) for each piece of a chunk inside one job: col0 a
// multiple of align, col0 + numCols one too or the job's end; nextCol the job's column
// where the next chunk will likely start (a prefetch hint), or -1.
void forGuidedColumns(ThreadPool& pool, const std::vector<GemmJob>& jobs, int align,
                      const std::function<void(const GemmJob& job, int col0, int numCols, int nextCol)>& fn);

// Runs every job on the same input rows x [numRows, ldx] (K = each job's w->cols()).
// Jobs with quantized weights run the quantized kernels (gemm_quant.h). weightsStream: the
// caller's weights do not fit in the L3 together (GemmArgs::weightsStream; a hint that
// changes no result).
void gemm(ThreadPool& pool, const CpuKernels& kernels, const float* x, size_t ldx, int numRows,
          const std::vector<GemmJob>& jobs, bool weightsStream = false);

}  // namespace lwb
