#include "ui/remote/remote_metrics_chart.h"

#include "ui/theme.h"

namespace lwb::ui {

RemoteMetricsChart::RemoteMetricsChart(QWidget* parent)
    : TimeChart(tr("The server's own gauges from its /metrics, scraped about once a second "
                   "(x: seconds since connecting)."),
                parent) {
  auto* top = rects().first();
  top->axis(QCPAxis::atLeft)->setLabel(tr("requests"));
  running_ = addLineGraph(top, theme::kRunning, tr("running"));
  running_->setLineStyle(QCPGraph::lsStepLeft);
  waiting_ = addLineGraph(top, theme::kWaiting, tr("waiting"));
  waiting_->setLineStyle(QCPGraph::lsStepLeft);
  auto* bottom = addAxisRect();
  bottom->axis(QCPAxis::atLeft)->setLabel(tr("KV cache usage (%)"));
  kvUsage_ = addLineGraph(bottom, theme::kDecode, tr("KV cache usage"));
  kvUsage_->setLineStyle(QCPGraph::lsStepLeft);
  plot()->legend->setVisible(false);
  addLegendInside(top, {running_, waiting_});
  addLegendInside(bottom, {kvUsage_});
  top->axis(QCPAxis::atLeft)->setRange(0, 8);
  bottom->axis(QCPAxis::atLeft)->setRange(0, 100);
}

void RemoteMetricsChart::addSample(const remote::ServerSample& s) {
  if (s.numRunning) running_->addData(s.time, *s.numRunning);
  if (s.numWaiting) waiting_->addData(s.time, *s.numWaiting);
  if (s.kvCacheUsage) kvUsage_->addData(s.time, 100 * *s.kvCacheUsage);
  ++numSamples_;
  setNow(s.time);
  fitToVisible(rects().first()->axis(QCPAxis::atLeft), {running_, waiting_}, 4);
  dropOldData();
  replotSoon();
}

}  // namespace lwb::ui
