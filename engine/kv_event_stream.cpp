#include "engine/kv_event_stream.h"

#include <iterator>

namespace lwb {

void KvEventStream::push(KvEventBatch batch) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    queue_.push_back(std::move(batch));
    if (queue_.size() > capacity_) {
      queue_.pop_front();
      ++dropped_;
    }
  }
  cv_.notify_all();
}

std::vector<KvEventBatch> KvEventStream::waitAndDrain(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [this] { return closed_ || !queue_.empty(); });
  std::vector<KvEventBatch> out(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

void KvEventStream::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

bool KvEventStream::isClosed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

uint64_t KvEventStream::numDropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

}  // namespace lwb
