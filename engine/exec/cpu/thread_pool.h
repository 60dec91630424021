#pragma once
// A persistent pool of worker threads for the CPU kernels. parallelFor hands out task
// indices dynamically; results never depend on which thread ran a task because every
// task writes disjoint outputs with a fixed sequence of operations (batch invariance).
#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace lwb {

class ThreadPool {
 public:
  // numThreads counts the calling thread; 0 = every core the process may use.
  explicit ThreadPool(int numThreads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int numThreads() const { return int(workers_.size()) + 1; }
  // Runs task(index, threadIndex) for index in [0, numTasks); threadIndex < numThreads()
  // names per-thread scratch. Returns when every task has finished. Not reentrant.
  using Task = std::function<void(int index, int threadIndex)>;
  void parallelFor(int numTasks, const Task& task);

  static int availableCores();

 private:
  void workerLoop(int threadIndex);
  void runTasks(int threadIndex, uint64_t generation);

  // The caller waits only for tasks that were claimed, never for a worker that has not
  // woken up yet (on a busy machine that can take a scheduler time slice): a task is
  // claimed by a CAS on claim_ = generation << 32 | next index, which fails for a worker
  // still holding an older generation.
  std::vector<std::thread> workers_;
  std::atomic<const Task*> task_{nullptr};
  std::atomic<int> numTasks_{0};
  std::atomic<uint64_t> claim_{0};
  std::atomic<int> doneTasks_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace lwb
