#include "engine/exec/cpu/thread_pool.h"

#include <sched.h>

#include <chrono>

namespace lwb {
namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spinning keeps the hand-off latency of back-to-back kernels in the microseconds; after
// this many polls a worker sleeps on the futex so an idle engine costs no CPU.
constexpr int kSpinPolls = 4000;

}  // namespace

int ThreadPool::availableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

ThreadPool::ThreadPool(int numThreads) {
  const int n = numThreads > 0 ? numThreads : availableCores();
  for (int i = 1; i < n; ++i) workers_.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::runTasks(int threadIndex) {
  for (;;) {
    const int i = nextTask_.fetch_add(1, std::memory_order_relaxed);
    if (i >= numTasks_) return;
    (*task_)(i, threadIndex);
  }
}

void ThreadPool::workerLoop(int threadIndex) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = generation_.load(std::memory_order_acquire);
    for (int spin = 0; g == seen && spin < kSpinPolls; ++spin) {
      cpuRelax();
      g = generation_.load(std::memory_order_acquire);
    }
    if (g == seen) {
      generation_.wait(seen, std::memory_order_acquire);
      continue;
    }
    seen = g;
    if (stop_.load()) return;
    runTasks(threadIndex);
    busyWorkers_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::parallelFor(int numTasks, const Task& task) {
  if (numTasks <= 0) return;
  if (workers_.empty() || numTasks == 1) {
    for (int i = 0; i < numTasks; ++i) task(i, 0);
    return;
  }
  task_ = &task;
  numTasks_ = numTasks;
  nextTask_.store(0, std::memory_order_relaxed);
  busyWorkers_.store(int(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  runTasks(0);
  for (int spin = 0; busyWorkers_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < kSpinPolls) cpuRelax();
    else std::this_thread::yield();
  }
  task_ = nullptr;
}

}  // namespace lwb
