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
  void runTasks(int threadIndex);

  // The caller waits only for tasks that were claimed, never for a worker that has not
  // woken up yet (on a busy machine that can take a scheduler time slice). A task is
  // claimed by a CAS on claim_ = numTasks << 32 | next index: the count travels in the
  // same word as the index, so a worker that read the word of an earlier dispatch either
  // fails its CAS or, when the words happen to be equal, claims a task of the current one
  // (it reads task_ after the CAS). Nothing else is shared with a late worker.
  std::vector<std::thread> workers_;
  std::atomic<const Task*> task_{nullptr};
  std::atomic<uint64_t> claim_{0};
  std::atomic<int> doneTasks_{0};
  std::atomic<uint64_t> generation_{0};  // bumped per dispatch: wakes the workers
  std::atomic<bool> stop_{false};
};

}  // namespace lwb
