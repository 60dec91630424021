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
  uint64_t c = claim_.load(std::memory_order_acquire);
  for (;;) {
    const uint32_t next = uint32_t(c), total = uint32_t(c >> 32);
    if (next >= total) return;
    if (!claim_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    // Claimed task `next` of the current dispatch: the caller waits for it, so task_ is still ours.
    (*task_.load(std::memory_order_acquire))(int(next), threadIndex);
    doneTasks_.fetch_add(1, std::memory_order_acq_rel);
    c = claim_.load(std::memory_order_acquire);
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
  }
}

void ThreadPool::parallelFor(int numTasks, const Task& task) {
  if (numTasks <= 0) return;
  if (workers_.empty() || numTasks == 1) {
    for (int i = 0; i < numTasks; ++i) task(i, 0);
    return;
  }
  task_.store(&task, std::memory_order_relaxed);
  doneTasks_.store(0, std::memory_order_relaxed);
  claim_.store(uint64_t(uint32_t(numTasks)) << 32, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  runTasks(0);
  for (int spin = 0; doneTasks_.load(std::memory_order_acquire) != numTasks; ++spin) {
    if (spin < kSpinPolls) cpuRelax();
    else std::this_thread::yield();
  }
}

}  // namespace lwb
