#include "ui/charts/prefix_cache_chart.h"

#include "ui/models/prefix_miss_text.h"
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

  auto* misses = addAxisRect();
  misses->axis(QCPAxis::atLeft)->setLabel(tr("missed tokens"));
  // In precedence order; the reasons a user can act on (diverged, evicted) stand out.
  const std::array<QColor, kNumPrefixMissReasons> colors = {
      theme::kMutedText, theme::kQueue, theme::kDuration, theme::kPreempt, theme::kVerify, theme::kMarker, theme::kDecode};
  QList<QCPAbstractPlottable*> legend;
  for (int i = 0; i < kNumPrefixMissReasons; ++i) {
    const QColor c = colors[size_t(i)];
    QCPGraph* g = addLineGraph(misses, c, prefixMissReasonLabel(prefixMissReasonAt(i)));
    g->setBrush(QColor(c.red(), c.green(), c.blue(), 150));
    if (i > 0) g->setChannelFillGraph(missed_[size_t(i - 1)]);
    missed_[size_t(i)] = g;
    legend << g;
  }

  plot()->legend->setVisible(false);
  addLegendInside(top, {recentGraph_, cumulative_});
  addLegendInside(bottom, {queried_, hit_});
  addLegendInside(misses, legend);
}

void PrefixCacheChart::clear() {
  TimeChart::clear();
  recent_.reset();
  totalQueried_ = totalHit_ = 0;
  totalMissed_ = {};
}

void PrefixCacheChart::onFrame(const Frame& frame) {
  for (const auto& c : frame.configChanges) addKnobMarker(c.time, QString::fromStdString(c.description));
  bool any = false, anyMissed = false;
  for (const auto& s : frame.steps) {
    for (size_t i = 0; i < totalMissed_.size(); ++i) {
      totalMissed_[i] += s.prefixMissTokens[i];
      anyMissed = anyMissed || s.prefixMissTokens[i] > 0;
    }
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
  if (anyMissed) {
    int64_t stack = 0;
    for (size_t i = 0; i < totalMissed_.size(); ++i) {
      stack += totalMissed_[i];
      missed_[i]->addData(now, double(stack));
    }
    if (following()) rects()[2]->axis(QCPAxis::atLeft)->setRange(0, std::max<double>(16, double(stack) * 1.1));
  }
  dropOldData();
  setNow(now);
}

}  // namespace lwb::ui
