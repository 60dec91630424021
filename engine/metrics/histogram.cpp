#include "engine/metrics/histogram.h"

#include <algorithm>
#include <string>

#include "engine/common/error.h"

namespace lwb {

Histogram::Histogram(std::vector<double> upperBounds) : bounds_(std::move(upperBounds)) {
  check(!bounds_.empty(), "Histogram: no bucket bounds given");
  for (size_t i = 1; i < bounds_.size(); ++i)
    check(bounds_[i] > bounds_[i - 1], "Histogram: bucket bounds must increase, found " +
                                           std::to_string(bounds_[i - 1]) + " then " + std::to_string(bounds_[i]));
  counts_.assign(bounds_.size() + 1, 0);
}

// A value equal to a bound belongs to that bound's bucket (Prometheus "le").
void Histogram::observe(double value) {
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  ++counts_[static_cast<size_t>(it - bounds_.begin())];
  ++count_;
  sum_ += value;
}

void Histogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  sum_ = 0;
}

std::vector<uint64_t> Histogram::cumulativeCounts() const {
  std::vector<uint64_t> out(counts_.size());
  uint64_t total = 0;
  for (size_t i = 0; i < counts_.size(); ++i) out[i] = total += counts_[i];
  return out;
}

std::vector<double> Histogram::ttftBuckets() {
  return {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
          2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
}

std::vector<double> Histogram::itlBuckets() {
  return {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
          1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
}

std::vector<double> Histogram::requestLatencyBuckets() {
  return {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0,
          40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
}

std::vector<double> Histogram::iterationTokenBuckets() {
  return {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
}

std::vector<double> Histogram::oneTwoFiveBuckets(int max) {
  std::vector<double> out;
  for (double scale = 1;; scale *= 10)
    for (double m : {1.0, 2.0, 5.0}) {
      if (m * scale > std::max(max, 1)) return out;
      out.push_back(m * scale);
    }
}

}  // namespace lwb
