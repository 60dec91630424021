#pragma once
// One reader's queue of KV-cache event batches from the engine thread (the server's
// vLLM-style publisher reads one). A batch is what one engine step (or one reported
// change between steps) did to the prefix cache, in order.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "engine/kv/kv_events.h"

namespace lwb {

struct KvEventBatch {
  double time = 0;  // wall clock, seconds since the Unix epoch (vLLM's ts)
  std::vector<KvCacheEvent> events;
};

class KvEventStream {
 public:
  explicit KvEventStream(size_t capacity) : capacity_(capacity) {}
  // The queued batches, waiting up to `timeout` for the first one (or close()).
  std::vector<KvEventBatch> waitAndDrain(std::chrono::milliseconds timeout);
  void close();
  bool isClosed() const;
  // Batches lost to a full queue: a reader that saw any must resynchronise.
  uint64_t numDropped() const;
  void push(KvEventBatch batch);  // called by the loop

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<KvEventBatch> queue_;
  size_t capacity_;
  uint64_t dropped_ = 0;
  bool closed_ = false;
};

}  // namespace lwb
