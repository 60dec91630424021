#include "engine/exec/cpu/gemm.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "engine/common/error.h"
#include "engine/exec/cpu/gemm_quant.h"
#include "engine/model/safetensors.h"

namespace lwb {
namespace {

constexpr int kRowGroup = kGemmRowGroup;  // rows per task (kernels.h)

struct TaskGrid {
  int colBlock = 0;                 // columns per task
  std::vector<int> firstTaskOfJob;  // prefix sums over jobs, [jobs + 1]
  int rowGroups = 0;
};

// Column blocks of a multiple of kPanel, small enough for ~4 tasks per thread so the
// dynamic scheduling evens out, large enough to amortise the per-task overhead.
// When the kernel names its tile's width (group panels), no block is narrower than one
// tile; a width that is not a power of two gets multiples of it instead: the largest up to
// 256 columns that still gives wantTasks tasks.
int chooseColBlock(int totalCols, int rowGroups, int numThreads, int group) {
  const int wantTasks = 4 * numThreads;
  auto tasks = [&](int block) { return int64_t(rowGroups) * ((totalCols + block - 1) / block); };
  const int unit = std::max(1, group) * kPanel;
  if ((unit & (unit - 1)) != 0) {
    int block = std::max(unit, 256 / unit * unit);
    while (block > unit && tasks(block) < wantTasks) block -= unit;
    return block;
  }
  int block = 256;
  while (block > unit && tasks(block) < wantTasks) block /= 2;
  return block;
}

TaskGrid makeGrid(const std::vector<GemmJob>& jobs, int numRows, int numThreads, int group) {
  TaskGrid g;
  g.rowGroups = (numRows + kRowGroup - 1) / kRowGroup;
  int totalCols = 0;
  for (const GemmJob& j : jobs) totalCols += j.w->rows();
  g.colBlock = chooseColBlock(totalCols, g.rowGroups, numThreads, group);
  g.firstTaskOfJob.push_back(0);
  for (const GemmJob& j : jobs)
    g.firstTaskOfJob.push_back(g.firstTaskOfJob.back() + g.rowGroups * ((j.w->rows() + g.colBlock - 1) / g.colBlock));
  return g;
}

// Panel p, row k: the 16 elements W[16p + j, k] (zero past N), elements of E bytes.
template <typename E>
void packPanel(const WeightMatrix& w, int p, E* out) {
  const E* src = static_cast<const E*>(w.data);
  const size_t K = size_t(w.cols);
  E* panel = out + size_t(p) * K * kPanel;
  const int n0 = p * kPanel, width = std::min(kPanel, w.rows - n0);
  for (int j = 0; j < width; ++j) {
    const E* row = src + size_t(n0 + j) * K;
    for (size_t k = 0; k < K; ++k) panel[k * kPanel + size_t(j)] = row[k];
  }
}

// BF16 panel p in k pairs (kernels.h): W[16p + j, k] at (k / 2) * 32 + 2j + k % 2 of the
// panel; the pad half of an odd K's last pair stays zero.
void packPanelPairs(const WeightMatrix& w, int p, uint16_t* out) {
  const uint16_t* src = static_cast<const uint16_t*>(w.data);
  const size_t K = size_t(w.cols);
  uint16_t* panel = out + size_t(p) * size_t(packedK(DType::BF16, w.cols)) * kPanel;
  const int n0 = p * kPanel, width = std::min(kPanel, w.rows - n0);
  for (int j = 0; j < width; ++j) {
    const uint16_t* row = src + size_t(n0 + j) * K;
    for (size_t k = 0; k < K; ++k) panel[k / 2 * 2 * kPanel + 2 * size_t(j) + k % 2] = row[k];
  }
}

}  // namespace

PackedMatrix packMatrix(ThreadPool& pool, const WeightMatrix& w, WeightArena* arena) {
  check(w.rows > 0 && w.cols > 0, "packMatrix: empty weight matrix");
  const int numPanels = (w.rows + kPanel - 1) / kPanel;
  const size_t elemSize = dtypeSize(w.dtype);
  const size_t bytes = size_t(numPanels) * size_t(packedK(w.dtype, w.cols)) * kPanel * elemSize;
  PackedMatrix m;
  m.storage_ = arena != nullptr ? arena->allocate(bytes, "packMatrix") : allocateAligned(bytes, "packMatrix");
  std::memset(m.storage_.get(), 0, bytes);  // the padding columns of the last panel, bf16's pad half
  pool.parallelFor(numPanels, [&](int p, int) {
    if (elemSize == 4) packPanel(w, p, reinterpret_cast<uint32_t*>(m.storage_.get()));
    else if (w.dtype == DType::BF16) packPanelPairs(w, p, reinterpret_cast<uint16_t*>(m.storage_.get()));
    else packPanel(w, p, reinterpret_cast<uint16_t*>(m.storage_.get()));
  });
  m.dtype_ = w.dtype;
  m.rows_ = w.rows;
  m.cols_ = w.cols;
  m.bytes_ = bytes;
  return m;
}

WeightMatrix weightMatrix(const TensorView& view) {
  check(view.shape.size() == 2, "tensor " + view.name + ": expected a 2-D weight");
  return {view.data, view.dtype, int(view.shape[0]), int(view.shape[1])};
}

void forGuidedColumns(ThreadPool& pool, const std::vector<GemmJob>& jobs, int align,
                      const std::function<void(const GemmJob& job, int col0, int numCols, int nextCol)>& fn) {
  const auto roundUp = [&](int n) { return (n + align - 1) / align * align; };
  int total = 0;
  for (const GemmJob& j : jobs) total += roundUp(j.w->rows());
  std::atomic<int> next{0};
  const int divisor = 2 * pool.numThreads();
  pool.parallelFor(pool.numThreads(), [&](int, int) {
    for (int c = next.load(std::memory_order_relaxed); c < total;) {
      const int left = total - c, chunk = std::min(left, std::max(align, left / divisor / align * align));
      if (!next.compare_exchange_weak(c, c + chunk, std::memory_order_relaxed)) continue;
      int first = 0;  // the job's first column end to end
      for (const GemmJob& job : jobs) {
        const int begin = std::max(c, first), end = std::min(c + chunk, first + job.w->rows());
        if (begin < end) {
          const int after = c + chunk - first;
          fn(job, begin - first, end - begin, after < job.w->rows() ? after : -1);
        }
        first += roundUp(job.w->rows());
      }
      c = next.load(std::memory_order_relaxed);
    }
  });
}

void gemm(ThreadPool& pool, const CpuKernels& kernels, const float* x, size_t ldx, int numRows,
          const std::vector<GemmJob>& jobs, bool weightsStream) {
  if (numRows <= 0 || jobs.empty()) return;
  if (jobs.front().w->isQuantized()) return gemmQuantized(pool, kernels.isa, x, ldx, numRows, jobs);
  const DType wtype = jobs.front().w->dtype();
  const int group = kernels.panelGroup != nullptr ? kernels.panelGroup(wtype, numRows) : 1;
  // Kernels that take bf16 weights' activations as bf16 k pairs get them converted once per
  // call (per calling thread: the workers see it through the reference), in tasks of ~16k
  // values, so that a decode step's few rows take no extra parallel region.
  thread_local std::vector<uint32_t> pairRows;
  std::vector<uint32_t>& pairs = pairRows;
  const bool bf16Pairs = kernels.bf16Pairs != nullptr && wtype == DType::BF16;
  const int K = jobs.front().w->cols();
  const size_t ldPairs = bf16Pairs ? size_t(K + 1) / 2 : 0;
  if (bf16Pairs) {
    if (pairs.size() < size_t(numRows) * ldPairs) pairs.resize(size_t(numRows) * ldPairs);
    const int rowsPerTask = std::max(1, 16384 / K);
    pool.parallelFor((numRows + rowsPerTask - 1) / rowsPerTask, [&](int task, int) {
      for (int r = task * rowsPerTask; r < std::min(numRows, (task + 1) * rowsPerTask); ++r)
        kernels.bf16Pairs(x + size_t(r) * ldx, K, pairs.data() + size_t(r) * ldPairs);
    });
  }
  if (numRows <= kRowGroup && pool.numThreads() > 1) {  // one row group: a decode step
    return forGuidedColumns(pool, jobs, group * kPanel, [&](const GemmJob& job, int col0, int numCols, int nextCol) {
      const PackedMatrix& w = *job.w;
      const GemmArgs args{x, ldx, w.data(), w.dtype(), job.y, job.ldy, w.cols(), w.rows(), nextCol,
                          bf16Pairs ? pairs.data() : nullptr, ldPairs, weightsStream};
      kernels.gemmBlock(args, 0, numRows, col0, numCols);
    });
  }
  const TaskGrid grid = makeGrid(jobs, numRows, pool.numThreads(), group);
  pool.parallelFor(grid.firstTaskOfJob.back(), [&](int task, int) {
    const size_t j = size_t(std::upper_bound(grid.firstTaskOfJob.begin(), grid.firstTaskOfJob.end(), task) -
                            grid.firstTaskOfJob.begin() - 1);
    const int local = task - grid.firstTaskOfJob[j];
    const int rowGroup = local % grid.rowGroups, colBlock = local / grid.rowGroups;
    const GemmJob& job = jobs[j];
    const PackedMatrix& w = *job.w;
    // The threads take the tasks in turn, so this thread's next task is likely numThreads on.
    const int nextLocal = local + pool.numThreads();
    const bool nextInJob = nextLocal < grid.firstTaskOfJob[j + 1] - grid.firstTaskOfJob[j];
    const GemmArgs args{x, ldx, w.data(), w.dtype(), job.y, job.ldy, w.cols(), w.rows(),
                        nextInJob ? nextLocal / grid.rowGroups * grid.colBlock : -1,
                        bf16Pairs ? pairs.data() : nullptr, ldPairs, weightsStream};
    const int row0 = rowGroup * kRowGroup, col0 = colBlock * grid.colBlock;
    kernels.gemmBlock(args, row0, std::min(kRowGroup, numRows - row0), col0, std::min(grid.colBlock, w.rows() - col0));
  });
}

}  // namespace lwb
