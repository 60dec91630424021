#include "engine/metrics/spec_decode_monitor.h"

namespace lwb {

SpecDecodeMonitor::SpecDecodeMonitor(int64_t windowDrafts, int64_t minDrafts)
    : windowDrafts_(windowDrafts > 0 ? windowDrafts : 1), minDrafts_(minDrafts) {}

void SpecDecodeMonitor::observe(const StepRecord& step) {
  if (step.numSpecDrafts <= 0) return;
  const Entry e{step.numSpecDrafts, step.numSpecTokens, step.numAcceptedSpecTokens};
  window_.push_back(e);
  numDrafts_ += e.drafts;
  numDraftTokens_ += e.draftTokens;
  numAcceptedTokens_ += e.accepted;
  // Drop the oldest steps while the rest still span the window.
  while (window_.size() > 1 && numDrafts_ - window_.front().drafts >= windowDrafts_) {
    numDrafts_ -= window_.front().drafts;
    numDraftTokens_ -= window_.front().draftTokens;
    numAcceptedTokens_ -= window_.front().accepted;
    window_.pop_front();
  }
  updateWarning();
}

void SpecDecodeMonitor::reset() {
  window_.clear();
  numDrafts_ = numDraftTokens_ = numAcceptedTokens_ = 0;
  warning_ = false;
}

double SpecDecodeMonitor::acceptanceRate() const {
  return numDraftTokens_ > 0 ? double(numAcceptedTokens_) / double(numDraftTokens_) : 0.0;
}

double SpecDecodeMonitor::meanAcceptanceLength() const {
  return numDrafts_ > 0 ? 1.0 + double(numAcceptedTokens_) / double(numDrafts_) : 1.0;
}

void SpecDecodeMonitor::updateWarning() {
  if (numDrafts_ < minDrafts_) return;  // too few verifications to judge: keep the verdict
  const double length = meanAcceptanceLength();
  if (!warning_ && length < kWarnBelow) warning_ = true;
  else if (warning_ && length >= kClearAt) warning_ = false;
}

}  // namespace lwb
