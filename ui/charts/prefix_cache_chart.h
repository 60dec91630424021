#pragma once
// Prefix-cache effectiveness over time: hit rate (hit tokens / queried tokens) over a
// sliding window and cumulatively; below, the cumulative queried and hit prompt tokens.
#include <deque>

#include "ui/bridge/frame.h"
#include "ui/charts/time_chart.h"

namespace lwb::ui {

class PrefixCacheChart : public TimeChart {
  Q_OBJECT
 public:
  static constexpr double kWindowSeconds = 10;
  explicit PrefixCacheChart(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  void clear() override;
  int numPoints() const { return cumulative_->data()->size(); }

 private:
  struct Sample {
    double time;
    int64_t queried, hit;
  };
  QCPGraph *window_, *cumulative_, *queried_, *hit_;
  std::deque<Sample> recent_;  // steps within the sliding window
  int64_t totalQueried_ = 0, totalHit_ = 0;
};

}  // namespace lwb::ui
