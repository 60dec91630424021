#pragma once
// Acceptance of speculative drafts over the most recent verifications, from the step
// records, and the rule that says when speculation has stopped paying for itself.
//
// The rule: warn when the mean acceptance length (1 + accepted / drafts: tokens a
// request gains per verification) over the last kWindowDrafts verifications falls below
// kWarnBelow = 1.3, once at least kMinDrafts verifications are in the window; clear it
// when the length is back at kClearAt = 1.4 or more (the gap keeps the warning from
// flickering around the line). Why 1.3: each verification costs the target k extra
// positions of budget and the proposer its own work (a draft model runs k passes of its
// own), while it saves only (length − 1) target steps. The shipped draft model costs
// about an eighth of the target per pass, so with k = 3 it needs a length of about
// 1.4 to break even; n-gram lookup is nearly free but its k extra positions crowd other
// requests out of a busy batch. Below 1.3 speculation is close to pure cost.
#include <cstdint>
#include <deque>

#include "engine/metrics/records.h"

namespace lwb {

class SpecDecodeMonitor {
 public:
  static constexpr double kWarnBelow = 1.3;
  static constexpr double kClearAt = 1.4;
  static constexpr int64_t kWindowDrafts = 256;
  static constexpr int64_t kMinDrafts = 64;

  explicit SpecDecodeMonitor(int64_t windowDrafts = kWindowDrafts, int64_t minDrafts = kMinDrafts);

  // Steps without verifications (speculation off, prefill only) change nothing.
  void observe(const StepRecord& step);
  void reset();  // speculative_config changed, or the engine restarted

  // Over the window: the newest steps holding at least windowDrafts verifications
  // (whole steps, so it may hold a few more).
  int64_t numDrafts() const { return numDrafts_; }
  int64_t numDraftTokens() const { return numDraftTokens_; }
  int64_t numAcceptedTokens() const { return numAcceptedTokens_; }
  double acceptanceRate() const;        // accepted / draft tokens; 0 without drafts
  double meanAcceptanceLength() const;  // 1 + accepted / drafts; 1 without drafts
  bool warning() const { return warning_; }

 private:
  struct Entry {
    int64_t drafts = 0, draftTokens = 0, accepted = 0;
  };
  void updateWarning();

  int64_t windowDrafts_, minDrafts_;
  std::deque<Entry> window_;  // [step with verifications], oldest first
  int64_t numDrafts_ = 0, numDraftTokens_ = 0, numAcceptedTokens_ = 0;
  bool warning_ = false;
};

}  // namespace lwb
