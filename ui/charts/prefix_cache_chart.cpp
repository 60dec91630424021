#include "ui/charts/prefix_cache_chart.h"

#include "ui/theme.h"

namespace lwb::ui {

PrefixCacheChart::PrefixCacheChart(QWidget* parent)
    : TimeChart(tr("Prompt tokens found in the prefix cache (computed once, reused): put static "
                   "text such as a system prompt first."),
                parent) {
  auto* top = rects().first();
  top->axis(QCPAxis::atLeft)->setLabel(tr("hit rate (%)"));
  top->axis(QCPAxis::atLeft)->setRange(0, 105);
  recentGraph_ = addLineGraph(top, theme::kCached,
                              tr("hit rate, last %1 requests").arg(CachingMetrics::kDefaultMaxRecentRequests));
  cumulative_ = addLineGraph(top, theme::kText, tr("hit rate, cumulative"));
  cumulative_->setPen(QPen(theme::kText, 1, Qt::DashLine));

  auto* bottom = addAxisRect();
  bottom->axis(QCPAxis::atLeft)->setLabel(tr("prompt tokens"));
  queried_ = addLineGraph(bottom, theme::kPrefill, tr("queried (cumulative)"));
  queried_->setBrush(QColor(theme::kPrefill.red(), theme::kPrefill.green(), theme::kPrefill.blue(), 60));
  hit_ = addLineGraph(bottom, theme::kCached, tr("hit (cumulative)"));
  hit_->setBrush(QColor(theme::kCached.red(), theme::kCached.green(), theme::kCached.blue(), 110));

  plot()->legend->setVisible(false);
  addLegendInside(top, {recentGraph_, cumulative_});
  addLegendInside(bottom, {queried_, hit_});
}

void PrefixCacheChart::clear() {
  TimeChart::clear();
  recent_.reset();
  totalQueried_ = totalHit_ = 0;
}

void PrefixCacheChart::onFrame(const Frame& frame) {
  for (const auto& c : frame.configChanges) addKnobMarker(c.time, QString::fromStdString(c.description));
  bool any = false;
  for (const auto& s : frame.steps) {
    if (s.prefixQueryTokens == 0) continue;  // only admissions query the cache
    totalQueried_ += s.prefixQueryTokens;
    totalHit_ += s.prefixHitTokens;
    recent_.observe(s.prefixQueryRequests, s.prefixQueryTokens, s.prefixHitTokens);
    any = true;
  }
  if (!frame.snapshot) return;
  const double now = frame.snapshot->time;
  if (any) {
    // One point per tick with admissions: enough resolution, bounded cost.
    recentGraph_->addData(now, 100.0 * recent_.hitRate());
    cumulative_->addData(now, 100.0 * double(totalHit_) / double(totalQueried_));
    queried_->addData(now, double(totalQueried_));
    hit_->addData(now, double(totalHit_));
    if (following()) rects()[1]->axis(QCPAxis::atLeft)->setRange(0, std::max<double>(16, totalQueried_ * 1.1));
  }
  dropOldData();
  setNow(now);
}

}  // namespace lwb::ui
