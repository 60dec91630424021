#include "ui/charts/capacity_chart.h"

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "engine/bench/bench_setting.h"
#include "ui/charts/time_chart.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {

const QColor& slotColor(int slot) { return slot == 0 ? theme::kRunA : theme::kRunB; }

bool isNumber(const std::string& value) { return sweepValueJson(value).is_number(); }

double numberOf(const std::string& value) { return sweepValueJson(value).get<double>(); }

QString axisLabel(const std::string& key) {
  const QString k = QString::fromStdString(key);
  return key == bench_key::kRequestRate ? QObject::tr("%1 (req/s)").arg(k) : k;
}

// A one-row legend inside the rect's top-left corner, as the time charts place theirs.
QCPLegend* addLegendInside(QCPAxisRect* rect, const QFont& font) {
  auto* legend = new QCPLegend;
  rect->insetLayout()->addElement(legend, Qt::AlignLeft | Qt::AlignTop);
  legend->setLayer(QStringLiteral("legend"));
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setTextColor(theme::kText);
  legend->setFont(font);
  legend->setIconSize(18, 8);
  legend->setColumnSpacing(10);
  legend->setBrush(QColor(0x17, 0x1a, 0x1f, 200));
  legend->setBorderPen(QPen(theme::kGrid));
  legend->setMargins(QMargins(5, 2, 5, 2));
  return legend;
}

void setLog(QCPAxis* axis, bool log) {
  axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (log) axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  else axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

}  // namespace

CapacityChart::CapacityChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(plot_);
  stylePlot(plot_);
  plot_->plotLayout()->clear();
  auto* group = new QCPMarginGroup(plot_);
  auto makeRect = [&](int row, const QString& label) {
    auto* rect = new QCPAxisRect(plot_);
    plot_->plotLayout()->addElement(row, 0, rect);
    styleAxisRect(rect);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    rect->axis(QCPAxis::atLeft)->setLabel(label);
    rect->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    rect->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    return rect;
  };
  ttftRect_ = makeRect(0, tr("p99 TTFT (ms)"));
  itlRect_ = makeRect(1, tr("p99 ITL, TPOT (ms)"));
  rateRect_ = makeRect(2, tr("req/s"));
  for (auto* rect : {ttftRect_, itlRect_})
    setLog(rect->axis(QCPAxis::atLeft), true);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  itlLegend_ = addLegendInside(itlRect_, small);
  rateLegend_ = addLegendInside(rateRect_, small);
  plot_->legend = nullptr;  // the first legend made became the plot's; graphs join ours explicitly
  plot_->setAutoAddPlottableToLegend(false);
  plot_->setMinimumHeight(3 * 70 + 30);  // three plots, each still readable
  plot_->setToolTip(
      tr("<p><b>Capacity under SLOs.</b> Each point is one benchmark run of the same seeded workload at one "
         "swept value.</p><p><b>Goodput</b> (vLLM's request_goodput): completed requests per second that met "
         "every SLO. Below the knee it follows throughput; past it, requests queue, TTFT grows without bound "
         "and goodput falls while throughput stays flat.</p><p>The dashed vertical line is the "
         "<b>saturation point</b>: the largest swept request rate at which at least 90 % of the completed "
         "requests met every SLO (DistServe's SLO attainment). Horizontal red lines: the SLOs.</p>"
         "<p>Drag to pan, scroll to zoom.</p>"));
  setSweeps(nullptr, nullptr);
}

QCPGraph* CapacityChart::graph(int slot, Series series) const { return graphs_[slot][int(series)]; }

double CapacityChart::xOf(const std::string& value) const {
  const std::string v = normalizeSweepValue(value);
  if (numericX_) return numberOf(v);
  return double(labels_.indexOf(QString::fromStdString(v)));
}

void CapacityChart::setSweeps(const Sweep* a, const Sweep* b) {
  for (auto* item : items_) plot_->removeItem(item);
  items_.clear();
  itlLegend_->clearItems();  // before the graphs they point at go
  rateLegend_->clearItems();
  plot_->clearGraphs();
  for (auto& slot : graphs_) std::fill(std::begin(slot), std::end(slot), nullptr);
  saturationX_[0] = saturationX_[1] = std::nullopt;
  setAxes(a, b);
  const Sweep* sweeps[2] = {a, b};
  std::vector<double> ttft, itl;
  double topRate = 1;
  for (int slot = 0; slot < 2; ++slot) {
    const Sweep* s = sweeps[slot];
    if (!s || s->points.empty()) continue;
    plotSweep(slot, *s);
    for (const SweepPoint& p : s->points) {
      ttft.push_back(p.ttft.p99);
      itl.insert(itl.end(), {p.itl.p99, p.tpot.p99});
      topRate = std::max({topRate, p.requestThroughput, p.requestGoodput.value_or(0)});
      if (s->key == bench_key::kRequestRate && isNumber(p.value)) topRate = std::max(topRate, numberOf(p.value));
    }
    if (s->goodput) {
      if (s->goodput->ttftMs) ttft.push_back(*s->goodput->ttftMs);
      if (s->goodput->tpotMs) itl.push_back(*s->goodput->tpotMs);
    }
  }
  // The SLO lines of A, and of B when its SLOs differ.
  for (int slot = 0; slot < 2; ++slot) {
    const Sweep* s = sweeps[slot];
    if (!s || !s->goodput || (slot == 1 && a && a->goodput && a->goodput->describe() == s->goodput->describe())) continue;
    const QString who = slot == 1 && a ? tr("B's ") : QString();
    if (s->goodput->ttftMs) addSloLine(ttftRect_, *s->goodput->ttftMs, tr("%1TTFT SLO %2 ms").arg(who).arg(*s->goodput->ttftMs));
    if (s->goodput->tpotMs) addSloLine(itlRect_, *s->goodput->tpotMs, tr("%1TPOT SLO %2 ms").arg(who).arg(*s->goodput->tpotMs));
  }
  for (int slot = 0; slot < 2; ++slot)
    if (const Sweep* s = sweeps[slot]; s && !s->points.empty())
      if (const auto sat = s->saturation()) addSaturationMark(slot, *s, *sat);
  QCPGraph* offered = nullptr;
  if (numericX_ && ((a && a->key == bench_key::kRequestRate) || (b && b->key == bench_key::kRequestRate))) {
    offered = addLineGraph(rateRect_, theme::kMutedText, tr("offered"));  // throughput's ceiling
    offered->setPen(QPen(theme::kMutedText, 1, Qt::DotLine));
    QVector<double> x;
    for (const Sweep* s : sweeps)
      if (s && s->key == bench_key::kRequestRate)
        for (const SweepPoint& p : s->points) x << xOf(p.value);
    offered->setData(x, x);
  }
  const int first = graphs_[0][int(Series::Ttft)] ? 0 : 1;  // the legends explain line styles, not slots
  auto fill = [&](QCPLegend* legend, std::initializer_list<QCPGraph*> graphs) {
    for (QCPGraph* g : graphs)
      if (g) legend->addItem(new QCPPlottableLegendItem(legend, g));
    legend->setVisible(legend->itemCount() > 0);
  };
  fill(itlLegend_, {graphs_[first][int(Series::Itl)], graphs_[first][int(Series::Tpot)]});
  fill(rateLegend_, {graphs_[first][int(Series::Goodput)], graphs_[first][int(Series::Throughput)], offered});
  fitLatencyAxis(ttftRect_, ttft);
  fitLatencyAxis(itlRect_, itl);
  rateRect_->axis(QCPAxis::atLeft)->setRange(0, topRate * 1.15);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void CapacityChart::plotSweep(int slot, const Sweep& s) {
  const QColor color = slotColor(slot);
  auto add = [&](QCPAxisRect* rect, Series series, Qt::PenStyle style, const QString& name,
                 double (*value)(const SweepPoint&)) {
    QCPGraph* g = addLineGraph(rect, color, name);
    g->setPen(QPen(color, series == Series::Goodput ? 2 : 1.5, style));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, theme::kBase, 6));
    g->setAdaptiveSampling(false);
    QVector<double> x, y;
    for (const SweepPoint& p : s.points) {
      x << xOf(p.value);
      y << value(p);
    }
    g->setData(x, y);  // sorted by key: a sweep may run its values in any order
    graphs_[slot][int(series)] = g;
  };
  add(ttftRect_, Series::Ttft, Qt::SolidLine, tr("p99 TTFT"), [](const SweepPoint& p) { return p.ttft.p99; });
  add(itlRect_, Series::Itl, Qt::SolidLine, tr("p99 ITL"), [](const SweepPoint& p) { return p.itl.p99; });
  add(itlRect_, Series::Tpot, Qt::DashLine, tr("p99 TPOT"), [](const SweepPoint& p) { return p.tpot.p99; });
  add(rateRect_, Series::Throughput, Qt::DashLine, tr("throughput"),
      [](const SweepPoint& p) { return p.requestThroughput; });
  if (s.goodput)
    add(rateRect_, Series::Goodput, Qt::SolidLine, tr("goodput"),
        [](const SweepPoint& p) { return p.requestGoodput.value_or(0); });
}

void CapacityChart::addSloLine(QCPAxisRect* rect, double ms, const QString& label) {
  auto* line = new QCPItemStraightLine(plot_);
  line->setPen(QPen(theme::kBudget, 1, Qt::DashDotLine));
  for (auto* pos : {line->point1, line->point2}) pos->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
  const double x0 = std::max(1e-9, rect->axis(QCPAxis::atBottom)->range().lower);
  line->point1->setCoords(x0, ms);
  line->point2->setCoords(x0 * 2 + 1, ms);
  line->setClipAxisRect(rect);
  auto* text = new QCPItemText(plot_);
  text->setClipAxisRect(rect);
  text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  text->position->setTypeY(QCPItemPosition::ptPlotCoords);
  text->position->setAxisRect(rect);
  text->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
  text->position->setCoords(0.01, ms);  // the left: clear of the SIMULATED mark, and below the knee
  text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  text->setText(label);
  text->setColor(theme::kBudget);
  items_ << line << text;
}

void CapacityChart::addSaturationMark(int slot, const Sweep& s, size_t index) {
  const double x = xOf(s.points[index].value);
  saturationX_[slot] = x;
  for (QCPAxisRect* rect : {ttftRect_, itlRect_, rateRect_}) {
    auto* line = new QCPItemStraightLine(plot_);
    line->setPen(QPen(slotColor(slot), 1.5, Qt::DashLine));
    for (auto* pos : {line->point1, line->point2}) pos->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    line->point1->setCoords(x, 1);
    line->point2->setCoords(x, 10);
    line->setClipAxisRect(rect);
    items_ << line;
  }
  auto* text = new QCPItemText(plot_);
  text->setClipAxisRect(rateRect_);
  text->position->setTypeX(QCPItemPosition::ptPlotCoords);
  text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  text->position->setAxisRect(rateRect_);
  text->position->setAxes(rateRect_->axis(QCPAxis::atBottom), rateRect_->axis(QCPAxis::atLeft));
  text->position->setCoords(x, slot == 0 ? 0.02 : 0.14);
  text->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  text->setPadding(QMargins(0, 0, 4, 0));
  text->setText(tr("%1 saturates at %2 req/s").arg(slot == 0 ? "A" : "B", QString::fromStdString(s.points[index].value)));
  text->setColor(slotColor(slot));
  items_ << text;
}

// The x axis of every plot: the swept values themselves (a log scale when they span a
// factor of 8 or more, as doubling rates do) or one slot per value.
void CapacityChart::setAxes(const Sweep* a, const Sweep* b) {
  std::vector<std::string> values;
  for (const Sweep* s : {a, b})
    if (s)
      for (const SweepPoint& p : s->points)
        if (std::find(values.begin(), values.end(), p.value) == values.end()) values.push_back(p.value);
  numericX_ = std::all_of(values.begin(), values.end(), isNumber);
  labels_.clear();
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  double lo = 0, hi = 1;
  bool log = false;
  if (numericX_ && !values.empty()) {
    std::vector<double> xs;
    for (const auto& v : values) {
      xs.push_back(numberOf(v));
      ticker->addTick(xs.back(), QString::fromStdString(v));
    }
    std::sort(xs.begin(), xs.end());
    log = xs.front() > 0 && xs.back() / xs.front() >= 8;
    lo = log ? xs.front() / 1.3 : xs.front() - std::max(0.05 * (xs.back() - xs.front()), 0.5);
    hi = log ? xs.back() * 1.3 : xs.back() + std::max(0.05 * (xs.back() - xs.front()), 0.5);
  } else {
    for (size_t i = 0; i < values.size(); ++i) {
      labels_ << QString::fromStdString(values[i]);
      ticker->addTick(double(i), labels_.back());
    }
    lo = -0.5;
    hi = std::max<double>(0.5, double(values.size()) - 0.5);
  }
  const Sweep* any = a ? a : b;
  for (QCPAxisRect* rect : {ttftRect_, itlRect_, rateRect_}) {
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    x->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    x->setTicker(ticker);
    x->setRange(lo, hi);
    x->setLabel(rect == rateRect_ && any ? axisLabel(any->key) : QString());
  }
}

void CapacityChart::fitLatencyAxis(QCPAxisRect* rect, std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0); }), values.end());
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  if (values.empty()) y->setRange(1, 1000);
  else y->setRange(*lo / 1.6, *hi * 1.6);
}

}  // namespace lwb::ui
