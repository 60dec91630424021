#include "ui/charts/latency_chart.h"

#include "ui/theme.h"

namespace lwb::ui {

LatencyChart::LatencyChart(QWidget* parent)
    : TimeChart(tr("TTFT = queueing + prefill (a point per request); ITL = gap between "
                   "decoded tokens (a point per token)."),
                parent) {
  auto* top = rects().first();
  top->axis(QCPAxis::atLeft)->setLabel(tr("TTFT (ms)"));
  ttft_ = addLineGraph(top, theme::kPrefill, tr("TTFT per request"));
  ttft_->setLineStyle(QCPGraph::lsNone);
  ttft_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, theme::kPrefill, 4));
  auto* bottom = addAxisRect();
  bottom->axis(QCPAxis::atLeft)->setLabel(tr("ITL (ms)"));
  itl_ = addLineGraph(bottom, theme::kDecode, tr("inter-token latency"));
  itl_->setLineStyle(QCPGraph::lsNone);
  itl_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDot, theme::kDecode, 2));
  plot()->legend->setVisible(false);
  addLegendInside(top, {ttft_});
  addLegendInside(bottom, {itl_});
}

void LatencyChart::clear() {
  TimeChart::clear();
  maxTtftMs_ = maxItlMs_ = 1;
}

void LatencyChart::onFrame(const Frame& frame) {
  for (const auto& c : frame.configChanges) addKnobMarker(c.time, QString::fromStdString(c.description));
  for (const auto& f : frame.finished) {
    const auto& t = f.timeline;
    if (auto ttft = t.ttft()) {
      ttft_->addData(*t.firstTokenTime, *ttft * 1000.0);
      maxTtftMs_ = std::max(maxTtftMs_, *ttft * 1000.0);
    }
    for (size_t i = 1; i < t.tokenTimes.size(); ++i) {
      const double gapMs = (t.tokenTimes[i] - t.tokenTimes[i - 1]) * 1000.0;
      itl_->addData(t.tokenTimes[i], gapMs);
      maxItlMs_ = std::max(maxItlMs_, gapMs);
    }
  }
  if (!frame.snapshot) return;
  dropOldData();
  setNow(frame.snapshot->time);
  fitToVisible(rects()[0]->axis(QCPAxis::atLeft), {ttft_}, 1);
  fitToVisible(rects()[1]->axis(QCPAxis::atLeft), {itl_}, 1);
}

}  // namespace lwb::ui
