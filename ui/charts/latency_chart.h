#pragma once
// Latency over time: TTFT of each finished request (amber: prefill and queueing set it)
// at its first-token time, and every inter-token gap (blue: decode sets it) at its
// token time. Both in milliseconds.
#include "ui/bridge/frame.h"
#include "ui/charts/time_chart.h"

namespace lwb::ui {

class LatencyChart : public TimeChart {
  Q_OBJECT
 public:
  explicit LatencyChart(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  void clear() override;
  int numTtftPoints() const { return ttft_->data()->size(); }

 private:
  QCPGraph *ttft_, *itl_;
  double maxTtftMs_ = 1, maxItlMs_ = 1;
};

}  // namespace lwb::ui
