#pragma once
// A fixed-capacity FIFO that overwrites its oldest element when full: the last N step
// records for a chart, the last N ITL samples for a rolling percentile. Not thread-safe.
#include <cstddef>
#include <vector>

#include "engine/common/error.h"

namespace lwb {

template <typename T>
class RingBuffer {
 public:
  explicit RingBuffer(size_t capacity) : data_(capacity) {
    check(capacity > 0, "RingBuffer: capacity must be at least 1");
  }

  void push(T value) {
    data_[(head_ + size_) % data_.size()] = std::move(value);
    if (size_ < data_.size()) ++size_;
    else head_ = (head_ + 1) % data_.size();
    ++totalPushed_;
  }
  void clear() { head_ = size_ = 0; }

  size_t size() const { return size_; }
  size_t capacity() const { return data_.size(); }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == data_.size(); }
  size_t totalPushed() const { return totalPushed_; }  // including overwritten ones

  // i = 0 is the oldest element kept; i < size().
  const T& operator[](size_t i) const { return data_[(head_ + i) % data_.size()]; }
  const T& front() const { return (*this)[0]; }
  const T& back() const { return (*this)[size_ - 1]; }
  std::vector<T> toVector() const {
    std::vector<T> out;
    out.reserve(size_);
    for (size_t i = 0; i < size_; ++i) out.push_back((*this)[i]);
    return out;
  }

 private:
  std::vector<T> data_;
  size_t head_ = 0;  // index of the oldest element
  size_t size_ = 0;
  size_t totalPushed_ = 0;
};

}  // namespace lwb
