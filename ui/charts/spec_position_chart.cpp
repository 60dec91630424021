#include "ui/charts/spec_position_chart.h"

#include <QVBoxLayout>
#include <algorithm>

#include "ui/charts/time_chart.h"
#include "ui/theme.h"

namespace lwb::ui {

SpecPositionChart::SpecPositionChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(plot_);
  stylePlot(plot_);
  plot_->setInteractions({});  // a handful of bars: nothing to pan or zoom
  bars_ = new QCPBars(plot_->xAxis, plot_->yAxis);
  bars_->setPen(QPen(theme::kVerify, 1));
  bars_->setBrush(QColor(theme::kVerify.red(), theme::kVerify.green(), theme::kVerify.blue(), 150));
  bars_->setWidth(0.6);
  plot_->xAxis->setLabel(tr("draft position"));
  plot_->yAxis->setLabel(tr("accepted (%)"));
  plot_->yAxis->setRange(0, 105);
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(1);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setRange(0.4, 1.6);
  setMinimumHeight(120);
  setToolTip(tr("<p>vllm:spec_decode_num_accepted_tokens_per_pos / vllm:spec_decode_num_drafts, since the "
                "engine started: the share of verifications that accepted the draft up to this position. "
                "A draft is accepted as a prefix, so the bars fall from left to right; a steep drop says "
                "fewer speculative tokens (num_speculative_tokens) would waste less.</p>"));
}

void SpecPositionChart::setCounts(const SpecDecodeCounts& counts, int numPositions) {
  const int n = std::max<int>(numPositions, int(counts.numAcceptedTokensPerPos.size()));
  if (counts.numDrafts == shownDrafts_ && n == shownPositions_) return;  // nothing new: no replot
  shownDrafts_ = counts.numDrafts;
  shownPositions_ = n;
  values_.assign(size_t(n), 0.0);
  QVector<double> keys, heights;
  for (int i = 0; i < n; ++i) {
    const int64_t accepted = size_t(i) < counts.numAcceptedTokensPerPos.size() ? counts.numAcceptedTokensPerPos[size_t(i)] : 0;
    if (counts.numDrafts > 0) values_[size_t(i)] = 100.0 * double(accepted) / double(counts.numDrafts);
    keys << i + 1;
    heights << values_[size_t(i)];
  }
  bars_->setData(keys, heights, true);
  plot_->xAxis->setRange(0.4, std::max(n, 1) + 0.6);
  if (isVisible()) plot_->replot(QCustomPlot::rpQueuedReplot);
}

void SpecPositionChart::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace lwb::ui
