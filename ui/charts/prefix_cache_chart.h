#pragma once
// Prefix-cache effectiveness over time: hit rate (hit tokens / queried tokens) over the
// most recent 1000 requests (the rate vLLM logs, CachingMetrics) and cumulatively (its
// counters); below, the cumulative queried and hit prompt tokens. As vLLM counts them:
// never-preempted requests, with caching on. At the bottom, the prompt tokens that
// missed, by reason (engine/kv/prefix_miss.h), cumulative and stacked in precedence order.
#include <array>

#include "engine/metrics/caching_metrics.h"

#include "ui/bridge/frame.h"
#include "ui/charts/time_chart.h"

namespace lwb::ui {

class PrefixCacheChart : public TimeChart {
  Q_OBJECT
 public:
  explicit PrefixCacheChart(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  void clear() override;
  int numPoints() const { return cumulative_->data()->size(); }
  int numMissPoints() const { return missed_[0]->data()->size(); }
  // The cumulative missed tokens of `reason` so far (the stack's layer, not its top).
  int64_t totalMissed(PrefixMissReason reason) const { return totalMissed_[size_t(reason)]; }

 private:
  QCPGraph *recentGraph_, *cumulative_, *queried_, *hit_;
  CachingMetrics recent_;
  int64_t totalQueried_ = 0, totalHit_ = 0;
  std::array<QCPGraph*, kNumPrefixMissReasons> missed_{};  // [reason]: top of the stack up to it
  std::array<int64_t, kNumPrefixMissReasons> totalMissed_{};
};

}  // namespace lwb::ui
