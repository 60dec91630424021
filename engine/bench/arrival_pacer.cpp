#include "engine/bench/arrival_pacer.h"

#include <algorithm>
#include <string>

#include "engine/common/error.h"

namespace lwb {

ArrivalPacer::ArrivalPacer(const std::vector<SyntheticRequest>& workload) {
  arrivals_.reserve(workload.size());
  for (const SyntheticRequest& r : workload) {
    check(arrivals_.empty() || r.arrivalTime >= arrivals_.back(),
          "workload: request " + std::to_string(arrivals_.size()) + " arrives at " + std::to_string(r.arrivalTime) +
              " s, before the one ahead of it; expected arrival times in order");
    arrivals_.push_back(r.arrivalTime);
  }
}

ArrivalPacer::Range ArrivalPacer::takeDue(double elapsed) {
  Range due{next_, next_};
  while (due.last < arrivals_.size() && arrivals_[due.last] <= elapsed) ++due.last;
  next_ = due.last;
  return due;
}

std::optional<double> ArrivalPacer::timeUntilNext(double elapsed) const {
  if (allTaken()) return std::nullopt;
  return std::max(0.0, arrivals_[next_] - elapsed);
}

}  // namespace lwb
