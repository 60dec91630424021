#include "ui/charts/spec_decode_chart.h"

#include <algorithm>

#include "ui/theme.h"

namespace lwb::ui {

SpecDecodeChart::SpecDecodeChart(QWidget* parent)
    : TimeChart(tr("Speculative decoding: how many draft tokens the target model accepts. Each "
                   "verification yields the accepted drafts plus one token of its own."),
                parent) {
  auto* top = rects().first();
  top->axis(QCPAxis::atLeft)->setLabel(tr("acceptance rate (%)"));
  top->axis(QCPAxis::atLeft)->setRange(0, 105);
  recentRate_ = addLineGraph(top, theme::kVerify,
                             tr("last %1 verifications").arg(SpecDecodeMonitor::kWindowDrafts));
  cumulativeRate_ = addLineGraph(top, theme::kText, tr("cumulative"));
  cumulativeRate_->setPen(QPen(theme::kText, 1, Qt::DashLine));

  auto* bottom = addAxisRect();
  bottom->axis(QCPAxis::atLeft)->setLabel(tr("mean acceptance length"));
  bottom->axis(QCPAxis::atLeft)->setRange(1, maxLength_);
  recentLength_ = addLineGraph(bottom, theme::kVerify,
                               tr("last %1 verifications").arg(SpecDecodeMonitor::kWindowDrafts));
  cumulativeLength_ = addLineGraph(bottom, theme::kText, tr("cumulative"));
  cumulativeLength_->setPen(QPen(theme::kText, 1, Qt::DashLine));
  // The warning threshold: below it speculation costs more than it saves.
  warnLine_ = new QCPItemStraightLine(plot());
  warnLine_->setClipAxisRect(bottom);
  for (auto* p : {warnLine_->point1, warnLine_->point2}) {
    p->setAxes(bottom->axis(QCPAxis::atBottom), bottom->axis(QCPAxis::atLeft));
    p->setAxisRect(bottom);
  }
  warnLine_->point1->setCoords(0, SpecDecodeMonitor::kWarnBelow);
  warnLine_->point2->setCoords(1, SpecDecodeMonitor::kWarnBelow);
  warnLine_->setPen(QPen(theme::kBudget, 1, Qt::DashLine));

  plot()->legend->setVisible(false);
  addLegendInside(top, {recentRate_, cumulativeRate_});
  addLegendInside(bottom, {recentLength_, cumulativeLength_});
}

void SpecDecodeChart::clear() {
  TimeChart::clear();
  monitor_.reset();
  totalDrafts_ = totalDraftTokens_ = totalAccepted_ = 0;
  maxLength_ = 2;
}

void SpecDecodeChart::onFrame(const Frame& frame) {
  for (const auto& c : frame.configChanges) {
    addKnobMarker(c.time, QString::fromStdString(c.description));
    // The recent window describes the old settings: judge the new ones afresh.
    if (!(c.oldConfig.speculative == c.newConfig.speculative)) monitor_.reset();
  }
  bool any = false;
  for (const auto& s : frame.steps) {
    if (s.numSpecDrafts <= 0) continue;
    monitor_.observe(s);
    totalDrafts_ += s.numSpecDrafts;
    totalDraftTokens_ += s.numSpecTokens;
    totalAccepted_ += s.numAcceptedSpecTokens;
    any = true;
  }
  if (!frame.snapshot) return;
  if (any) addPoint(frame.snapshot->time);
  dropOldData();
  setNow(frame.snapshot->time);
}

void SpecDecodeChart::addPoint(double now) {
  const double cumulativeLength = 1.0 + double(totalAccepted_) / double(totalDrafts_);
  recentRate_->addData(now, 100.0 * monitor_.acceptanceRate());
  cumulativeRate_->addData(now, totalDraftTokens_ > 0 ? 100.0 * double(totalAccepted_) / double(totalDraftTokens_) : 0.0);
  recentLength_->addData(now, monitor_.meanAcceptanceLength());
  cumulativeLength_->addData(now, cumulativeLength);
  // The length can reach k + 1; the axis grows to the largest seen, never shrinks mid-run.
  maxLength_ = std::max({maxLength_, monitor_.meanAcceptanceLength() * 1.1, cumulativeLength * 1.1});
  if (following()) rects()[1]->axis(QCPAxis::atLeft)->setRange(1, maxLength_);
}

}  // namespace lwb::ui
