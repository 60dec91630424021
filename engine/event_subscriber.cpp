// EventSubscriber (declared in engine_loop.h): one reader's bounded event queue.
#include "engine/engine_loop.h"

#include <algorithm>

namespace lwb {

void EventSubscriber::push(const EngineEvent& e) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    queue_.push_back(e);
    if (queue_.size() > capacity_) {
      // A step record is only a chart point; deltas and finishes carry a client's answer.
      auto it = std::find_if(queue_.begin(), queue_.end(),
                             [](const EngineEvent& q) { return std::holds_alternative<StepRecord>(q); });
      queue_.erase(it == queue_.end() ? queue_.begin() : it);
      ++dropped_;
    }
  }
  cv_.notify_all();
}

std::vector<EngineEvent> EventSubscriber::waitAndDrain(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [this] { return closed_ || !queue_.empty(); });
  std::vector<EngineEvent> out(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

std::vector<EngineEvent> EventSubscriber::drain() { return waitAndDrain(std::chrono::milliseconds(0)); }

void EventSubscriber::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

bool EventSubscriber::isClosed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

uint64_t EventSubscriber::numDropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

}  // namespace lwb
