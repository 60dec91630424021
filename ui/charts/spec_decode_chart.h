#pragma once
// Speculative decoding over time, from the step records: above, the acceptance rate
// (accepted / draft tokens) over the most recent verifications and cumulatively; below,
// the mean acceptance length (1 + accepted / drafts: tokens a request gains per
// verification) with the warning line of SpecDecodeMonitor. One point per GUI tick with
// verifications.
#include "engine/metrics/spec_decode_monitor.h"

#include "ui/bridge/frame.h"
#include "ui/charts/time_chart.h"

namespace lwb::ui {

class SpecDecodeChart : public TimeChart {
  Q_OBJECT
 public:
  explicit SpecDecodeChart(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  void clear() override;
  // The recent window that feeds the curves and the warning.
  const SpecDecodeMonitor& monitor() const { return monitor_; }
  int numPoints() const { return recentRate_->data()->size(); }

 private:
  void addPoint(double now);

  QCPGraph *recentRate_, *cumulativeRate_, *recentLength_, *cumulativeLength_;
  QCPItemStraightLine* warnLine_;
  SpecDecodeMonitor monitor_;
  int64_t totalDrafts_ = 0, totalDraftTokens_ = 0, totalAccepted_ = 0;
  double maxLength_ = 2;
};

}  // namespace lwb::ui
