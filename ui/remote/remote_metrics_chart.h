#pragma once
// The remote server's own gauges over time, as its /metrics reports them about once a
// second: running and waiting requests, KV cache usage. A gauge the server does not
// export stays empty and the hint says so.
#include "remote/metrics_scraper.h"
#include "ui/charts/time_chart.h"

namespace lwb::ui {

class RemoteMetricsChart : public TimeChart {
  Q_OBJECT
 public:
  explicit RemoteMetricsChart(QWidget* parent = nullptr);
  void addSample(const remote::ServerSample& s);
  int numSamples() const { return numSamples_; }

 private:
  QCPGraph *running_, *waiting_, *kvUsage_;
  int numSamples_ = 0;
};

}  // namespace lwb::ui
