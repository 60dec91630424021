#pragma once
// Multithreaded GEMM/GEMV over weights in their file dtype: y[t, n] = x[t, :] · W[n, :].
// Several GEMMs that share the input rows (q/k/v, gate/up) run in one dispatch. Threads
// split the work by output tiles only, never along K, so the result of every element is
// independent of the batch size and the thread count.
#include <vector>

#include "engine/exec/cpu/kernels.h"
#include "engine/exec/cpu/thread_pool.h"

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

struct GemmJob {
  WeightMatrix w;
  float* y = nullptr;  // [numRows, ldy], columns [0, w.rows) written
  size_t ldy = 0;
};

// Runs every job on the same input rows x [numRows, ldx] (K = each job's w.cols).
void gemm(ThreadPool& pool, const CpuKernels& kernels, const float* x, size_t ldx, int numRows,
          const std::vector<GemmJob>& jobs);

}  // namespace lwb
