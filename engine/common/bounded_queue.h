#pragma once
// One reader's bounded queue between a producer thread (the engine loop) and a reader
// that sleeps until something arrives (an HTTP handler, the KV-event publisher). A full
// queue never blocks the producer: a push drops one queued item and counts it.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <mutex>
#include <vector>

namespace lwb {

template <typename T>
class BoundedQueue {
 public:
  // Which queued items a full queue drops first (the oldest of them); when none is
  // given, or none matches, the oldest item goes.
  using DropFirst = bool (*)(const T&);

  explicit BoundedQueue(size_t capacity, DropFirst dropFirst = nullptr) : capacity_(capacity), dropFirst_(dropFirst) {}

  // Called by the producer; ignored once closed.
  void push(T item) {
    {
      std::lock_guard lock(mu_);
      if (closed_) return;
      queue_.push_back(std::move(item));
      if (queue_.size() > capacity_) dropOne();
    }
    cv_.notify_all();
  }

  // The queued items, waiting up to `timeout` for the first one (or close()).
  std::vector<T> waitAndDrain(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [this] { return closed_ || !queue_.empty(); });
    std::vector<T> out(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
    queue_.clear();
    return out;
  }
  std::vector<T> drain() { return waitAndDrain(std::chrono::milliseconds(0)); }

  // Wakes the waiters; later pushes are ignored.
  void close() {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

  bool isClosed() const {
    std::lock_guard lock(mu_);
    return closed_;
  }

  // Items lost to a full queue.
  uint64_t numDropped() const {
    std::lock_guard lock(mu_);
    return dropped_;
  }

 private:
  void dropOne() {
    auto it = dropFirst_ ? std::find_if(queue_.begin(), queue_.end(), dropFirst_) : queue_.end();
    queue_.erase(it == queue_.end() ? queue_.begin() : it);
    ++dropped_;
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> queue_;
  size_t capacity_;
  DropFirst dropFirst_;
  uint64_t dropped_ = 0;
  bool closed_ = false;
};

}  // namespace lwb
