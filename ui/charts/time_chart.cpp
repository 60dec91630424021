#include "ui/charts/time_chart.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/theme.h"

namespace lwb::ui {

namespace {
void styleAxis(QCPAxis* axis) {
  QPen base(theme::kAxis, 1);
  axis->setBasePen(base);
  axis->setTickPen(base);
  axis->setSubTickPen(base);
  axis->setTickLabelColor(theme::kMutedText);
  axis->setLabelColor(theme::kText);
  axis->grid()->setPen(QPen(theme::kGrid, 1, Qt::DotLine));
  axis->grid()->setZeroLinePen(Qt::NoPen);
  axis->grid()->setSubGridVisible(false);
}
}  // namespace

void styleAxisRect(QCPAxisRect* rect) {
  for (auto* axis : rect->axes()) styleAxis(axis);
  rect->setBackground(theme::kBase);
  rect->setupFullAxesBox(false);
  rect->axis(QCPAxis::atTop)->setVisible(false);
}

void stylePlot(QCustomPlot* plot) {
  plot->setBackground(theme::kWindow);
  plot->setNotAntialiasedElements(QCP::aeAll);  // dense plots: crisp and fast
  plot->setAntialiasedElements(QCP::aeLegend | QCP::aeItems);
  plot->setNoAntialiasingOnDrag(true);
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot->legend->setBrush(QColor(0x17, 0x1a, 0x1f, 220));
  plot->legend->setBorderPen(QPen(theme::kGrid));
  plot->legend->setTextColor(theme::kText);
  QFont f = plot->font();
  f.setPointSizeF(f.pointSizeF() * 0.9);
  plot->legend->setFont(f);
  plot->legend->setIconSize(14, 8);
  for (int i = 0; i < plot->axisRectCount(); ++i) styleAxisRect(plot->axisRect(i));
}

QCPGraph* addLineGraph(QCPAxisRect* rect, const QColor& color, const QString& name, bool y2) {
  auto* g = rect->parentPlot()->addGraph(rect->axis(QCPAxis::atBottom),
                                         rect->axis(y2 ? QCPAxis::atRight : QCPAxis::atLeft));
  g->setPen(QPen(color, 1));
  g->setName(name);
  g->setAdaptiveSampling(true);
  return g;
}

TimeChart::TimeChart(const QString& hint, QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  auto* top = new QHBoxLayout;
  auto* hintLabel = new QLabel(hint, this);
  hintLabel->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kMutedText)));
  // Wraps (captions are one or two short lines); the full text is also the tooltip.
  hintLabel->setToolTip(QStringLiteral("<p>%1</p>").arg(hint));
  hintLabel->setWordWrap(true);
  hintLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Minimum);
  liveButton_ = new QToolButton(this);
  liveButton_->setText(tr("● Live"));
  liveButton_->setCheckable(true);
  liveButton_->setChecked(true);
  liveButton_->setToolTip(tr("Follow the newest data. Drag to pan and scroll to zoom (that stops "
                             "following); double-click the chart or press this to follow again."));
  connect(liveButton_, &QToolButton::toggled, this, &TimeChart::setFollow);
  plot_->setToolTip(tr("<p>%1</p><p>Drag to pan, scroll to zoom the time axis; "
                       "double-click to follow live data.</p>").arg(hint));
  top->addWidget(hintLabel, 1);
  top->addWidget(liveButton_);
  layout->addLayout(top);
  layout->addWidget(plot_, 1);

  stylePlot(plot_);
  rects_ << plot_->axisRect();
  updateMinimumHeight();
  plot_->xAxis->setLabel(tr("engine time (s)"));
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &TimeChart::syncRanges);
  connect(plot_, &QCustomPlot::mousePress, this, [this] { setFollow(false); });
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { setFollow(false); });
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { setFollow(true); });
  plot_->xAxis->setRange(0, windowSeconds_);
}

void TimeChart::replotSoon() {
  if (isVisible()) replot_.request();  // hidden charts skip; showEvent replots
}

void TimeChart::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  plot_->replot(QCustomPlot::rpQueuedReplot);  // it skipped replots while hidden
}

QCPAxisRect* TimeChart::addAxisRect() {
  auto* rect = new QCPAxisRect(plot_);
  plot_->plotLayout()->addElement(plot_->plotLayout()->rowCount(), 0, rect);
  styleAxisRect(rect);
  rect->setRangeZoom(Qt::Horizontal);
  rect->setRangeDrag(Qt::Horizontal);
  // Align the left edges of all rects so the time axes line up.
  auto* group = rects_.first()->marginGroup(QCP::msLeft);
  if (!group) {
    group = new QCPMarginGroup(plot_);
    rects_.first()->setMarginGroup(QCP::msLeft | QCP::msRight, group);
  }
  rect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
  rect->axis(QCPAxis::atBottom)->setRange(plot_->xAxis->range());
  connect(rect->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          &TimeChart::syncRanges);
  // Only the bottom rect needs the time label and tick labels: the rects share the axis.
  rects_.last()->axis(QCPAxis::atBottom)->setLabel(QString());
  rects_.last()->axis(QCPAxis::atBottom)->setTickLabels(false);
  rect->axis(QCPAxis::atBottom)->setLabel(tr("engine time (s)"));
  rects_ << rect;
  updateMinimumHeight();
  return rect;
}

// Items are added after the legend is placed in a layout: they need its parent plot.
void TimeChart::fillRowLegend(QCPLegend* legend, const QList<QCPAbstractPlottable*>& plottables) {
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setTextColor(theme::kText);
  legend->setFont(plot_->legend->font());
  legend->setIconSize(14, 8);
  legend->setRowSpacing(0);
  legend->setColumnSpacing(10);
  for (auto* p : plottables) {
    p->removeFromLegend();
    legend->addItem(new QCPPlottableLegendItem(legend, p));
  }
}

QCPLegend* TimeChart::addLegendAbove(QCPAxisRect* rect, const QList<QCPAbstractPlottable*>& plottables) {
  auto* layout = plot_->plotLayout();
  int row = 0;
  for (int r = 0; r < layout->rowCount(); ++r)
    if (layout->element(r, 0) == rect) row = r;
  layout->insertRow(row);
  auto* legend = new QCPLegend;
  layout->addElement(row, 0, legend);
  legend->setLayer(QStringLiteral("legend"));
  fillRowLegend(legend, plottables);
  legend->setBrush(Qt::NoBrush);
  legend->setBorderPen(Qt::NoPen);
  legend->setMargins(QMargins(4, 0, 4, 0));
  legend->setMinimumMargins(QMargins(0, 0, 0, 0));
  legend->setAutoMargins(QCP::msNone);
  legend->setMaximumSize(QWIDGETSIZE_MAX, plot_->fontMetrics().height() + 4);
  layout->setRowStretchFactor(row, 0.001);
  return legend;
}

QCPLegend* TimeChart::addLegendInside(QCPAxisRect* rect, const QList<QCPAbstractPlottable*>& plottables) {
  auto* legend = new QCPLegend;
  rect->insetLayout()->addElement(legend, Qt::AlignLeft | Qt::AlignTop);
  // Layer first: the items then draw after (over) the legend's semi-opaque box.
  legend->setLayer(QStringLiteral("legend"));
  fillRowLegend(legend, plottables);
  legend->setBrush(QColor(0x17, 0x1a, 0x1f, 200));
  legend->setBorderPen(QPen(theme::kGrid));
  legend->setMargins(QMargins(5, 2, 5, 2));
  return legend;
}

void TimeChart::updateMinimumHeight() {
  // Axis labels and ticks of the bottom rect take about 40 px more.
  plot_->setMinimumHeight(kMinRectHeight * int(rects_.size()) + 40);
}

void TimeChart::fitToVisible(QCPAxis* axis, const QList<QCPGraph*>& graphs, double minTop) {
  if (!follow_) return;
  double top = minTop;
  const QCPRange keys = plot_->xAxis->range();
  for (auto* g : graphs) {
    bool found = false;
    const QCPRange r = g->getValueRange(found, QCP::sdBoth, keys);
    if (found) top = std::max(top, r.upper);
  }
  axis->setRange(0, top * 1.25);  // headroom: the legend sits inside, top-left
}

void TimeChart::syncRanges(const QCPRange& range) {
  if (syncing_) return;
  syncing_ = true;
  for (auto* r : rects_) r->axis(QCPAxis::atBottom)->setRange(range);
  syncing_ = false;
}

void TimeChart::setFollow(bool follow) {
  follow_ = follow;
  if (liveButton_->isChecked() != follow) liveButton_->setChecked(follow);
  if (follow) setNow(now_);
}

void TimeChart::setWindowSeconds(double s) {
  windowSeconds_ = s;
  setNow(now_);
}

void TimeChart::setNow(double now) {
  now_ = now;
  if (!follow_) return;
  // Early in a run the window grows with the data, so the first seconds are not
  // squeezed into the left edge of a 60 s axis.
  const double w = std::min(windowSeconds_, std::max(10.0, now * 1.05));
  const double hi = std::max(now, w * 0.98);
  syncRanges(QCPRange(hi - w * 0.98, hi + w * 0.02));
  replotSoon();
}

void TimeChart::dropOldData() {
  const double cutoff = now_ - kKeepSeconds;
  if (cutoff <= 0) return;
  for (int i = 0; i < plot_->graphCount(); ++i) plot_->graph(i)->data()->removeBefore(cutoff);
}

void TimeChart::addKnobMarker(double time, const QString& label) {
  constexpr int kMaxMarkers = 300;  // each is a line per rect plus a label
  while (markers_.size() > kMaxMarkers) plot_->removeItem(markers_.takeFirst());
  const QPen pen(theme::kMarker, 1, Qt::DashLine);
  for (auto* r : rects_) {
    auto* line = new QCPItemStraightLine(plot_);
    line->setClipAxisRect(r);
    line->point1->setAxes(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
    line->point2->setAxes(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
    line->point1->setCoords(time, 0);
    line->point2->setCoords(time, 1);
    line->setPen(pen);
    markers_ << line;
  }
  auto* text = new QCPItemText(plot_);
  text->setClipAxisRect(rects_.first());
  text->position->setAxes(rects_.first()->axis(QCPAxis::atBottom), rects_.first()->axis(QCPAxis::atLeft));
  text->position->setAxisRect(rects_.first());
  text->position->setTypeX(QCPItemPosition::ptPlotCoords);
  text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  // Below the inside legend's row (top-left), so the two rarely collide.
  text->position->setCoords(time, 0.16);
  text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  text->setText(label);
  text->setColor(theme::kMarker);
  text->setPadding(QMargins(3, 1, 3, 1));
  text->setBrush(QColor(0x17, 0x1a, 0x1f, 200));
  markers_ << text;
  replotSoon();
}

void TimeChart::clear() {
  for (int i = 0; i < plot_->graphCount(); ++i) plot_->graph(i)->data()->clear();
  for (auto* m : markers_) plot_->removeItem(m);
  markers_.clear();
  now_ = 0;
  setFollow(true);
  setNow(0);
}

}  // namespace lwb::ui
