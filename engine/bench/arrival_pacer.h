#pragma once
// Paces a workload's arrivals against a clock that starts at 0: which requests are due
// by now, and how long until the next one. One pacing for every driver of synthetic
// load (the bench runner stepping an Engine, the window's load generator on a timer),
// so both submit the same request at the same offset.
#include <cstddef>
#include <optional>
#include <vector>

#include "engine/bench/workload.h"

namespace lwb {

class ArrivalPacer {
 public:
  struct Range {
    size_t first = 0, last = 0;  // [first, last): indices into the workload
    size_t size() const { return last - first; }
  };

  ArrivalPacer() = default;
  // Arrival times must not decrease (makeWorkload's do not); throws lwb::Error otherwise.
  explicit ArrivalPacer(const std::vector<SyntheticRequest>& workload);

  // The requests whose arrival time is at most `elapsed` seconds and that were not taken
  // yet, in order; they count as taken from now on.
  Range takeDue(double elapsed);
  // Seconds from `elapsed` until the next request is due (0 when one is overdue);
  // nullopt when every request was taken.
  std::optional<double> timeUntilNext(double elapsed) const;
  void finish() { next_ = arrivals_.size(); }  // stop early: nothing more is due
  size_t numTaken() const { return next_; }
  size_t size() const { return arrivals_.size(); }
  bool allTaken() const { return next_ >= arrivals_.size(); }

 private:
  std::vector<double> arrivals_;  // seconds from the start, per request
  size_t next_ = 0;
};

}  // namespace lwb
