#include "engine/exec/cpu/gemm.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/model/safetensors.h"

namespace lwb {
namespace {

// Rows per task: x of a row group stays in L2 while its weights stream through L1.
constexpr int kRowGroup = 64;

struct TaskGrid {
  int colBlock = 0;                 // columns per task
  std::vector<int> firstTaskOfJob;  // prefix sums over jobs, [jobs + 1]
  int rowGroups = 0;
};

// Column blocks of a multiple of 16, small enough for ~4 tasks per thread so the
// dynamic scheduling evens out, large enough to amortise the per-task overhead.
int chooseColBlock(int totalCols, int rowGroups, int numThreads) {
  const int wantTasks = 4 * numThreads;
  int block = 256;
  while (block > 16 && int64_t(rowGroups) * ((totalCols + block - 1) / block) < wantTasks) block /= 2;
  return block;
}

TaskGrid makeGrid(const std::vector<GemmJob>& jobs, int numRows, int numThreads) {
  TaskGrid g;
  g.rowGroups = (numRows + kRowGroup - 1) / kRowGroup;
  int totalCols = 0;
  for (const GemmJob& j : jobs) totalCols += j.w.rows;
  g.colBlock = chooseColBlock(totalCols, g.rowGroups, numThreads);
  g.firstTaskOfJob.push_back(0);
  for (const GemmJob& j : jobs)
    g.firstTaskOfJob.push_back(g.firstTaskOfJob.back() + g.rowGroups * ((j.w.rows + g.colBlock - 1) / g.colBlock));
  return g;
}

}  // namespace

WeightMatrix weightMatrix(const TensorView& view) {
  check(view.shape.size() == 2, "tensor " + view.name + ": expected a 2-D weight");
  return {view.data, view.dtype, int(view.shape[0]), int(view.shape[1])};
}

void gemm(ThreadPool& pool, const CpuKernels& kernels, const float* x, size_t ldx, int numRows,
          const std::vector<GemmJob>& jobs) {
  if (numRows <= 0 || jobs.empty()) return;
  const TaskGrid grid = makeGrid(jobs, numRows, pool.numThreads());
  pool.parallelFor(grid.firstTaskOfJob.back(), [&](int task, int) {
    const size_t j = size_t(std::upper_bound(grid.firstTaskOfJob.begin(), grid.firstTaskOfJob.end(), task) -
                            grid.firstTaskOfJob.begin() - 1);
    const int local = task - grid.firstTaskOfJob[j];
    const int rowGroup = local % grid.rowGroups, colBlock = local / grid.rowGroups;
    const GemmJob& job = jobs[j];
    const GemmArgs args{x, ldx, job.w.data, job.w.dtype, job.y, job.ldy, job.w.cols};
    const int row0 = rowGroup * kRowGroup, col0 = colBlock * grid.colBlock;
    kernels.gemmBlock(args, row0, std::min(kRowGroup, numRows - row0), col0, std::min(grid.colBlock, job.w.rows - col0));
  });
}

}  // namespace lwb
