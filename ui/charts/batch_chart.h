#pragma once
// Batch composition per engine step: decode tokens (blue), speculative draft tokens
// being verified (violet) and prefill tokens (amber) stacked on top, against the token budget (max_num_batched_tokens, red dashed); below,
// running / waiting requests and the step duration (ms, right axis).
#include "ui/bridge/frame.h"
#include "ui/charts/time_chart.h"

namespace lwb::ui {

class BatchChart : public TimeChart {
  Q_OBJECT
 public:
  explicit BatchChart(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  int numPoints() const { return decode_->data()->size(); }
  // Plots only the steps of instance `index` (StepRecord::instanceIndex; a colocated
  // engine's are all 0, a P/D pair's decode instance 1 too). A new index clears the chart.
  void setInstance(int index);
  int instance() const { return instance_; }

 private:
  void addStep(const StepRecord& s);

  QCPGraph *decode_, *verify_, *stacked_, *budget_;
  QCPGraph *running_, *waiting_, *duration_;
  double maxTokens_ = 1, maxSeqs_ = 1, maxMs_ = 1;
  int instance_ = 0;
};

}  // namespace lwb::ui
