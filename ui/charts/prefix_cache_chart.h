#pragma once
// Prefix-cache effectiveness over time: hit rate (hit tokens / queried tokens) over the
// most recent 1000 requests (the rate vLLM logs, CachingMetrics) and cumulatively (its
// counters); below, the cumulative queried and hit prompt tokens. As vLLM counts them:
// never-preempted requests, with caching on.
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


 private:
  QCPGraph *recentGraph_, *cumulative_, *queried_, *hit_;
  CachingMetrics recent_;
  int64_t totalQueried_ = 0, totalHit_ = 0;
};

}  // namespace lwb::ui
