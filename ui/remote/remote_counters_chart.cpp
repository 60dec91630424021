#include "ui/remote/remote_counters_chart.h"

#include "ui/theme.h"

namespace lwb::ui {

namespace {
std::optional<double> lastValue(const QCPGraph* g) {
  if (g->data()->isEmpty()) return std::nullopt;
  return (g->data()->constEnd() - 1)->value;
}
}  // namespace

RemoteCountersChart::RemoteCountersChart(QWidget* parent)
    : TimeChart(tr("The server's batches and prefix cache, from the growth of its /metrics counters "
                   "between two scrapes (x: seconds since connecting)."),
                parent) {
  auto* top = rects().first();
  top->axis(QCPAxis::atLeft)->setLabel(tr("tokens / step"));
  tokensPerIteration_ = addLineGraph(top, theme::kPrefill, tr("tokens per engine step (mean of the interval)"));
  tokensPerIteration_->setLineStyle(QCPGraph::lsStepLeft);
  auto* middle = addAxisRect();
  middle->axis(QCPAxis::atLeft)->setLabel(tr("prefix hit rate (%)"));
  middle->axis(QCPAxis::atLeft)->setRange(0, 105);
  hitRate_ = addLineGraph(middle, theme::kCached, tr("hit rate of the interval's prompts"));
  hitRate_->setLineStyle(QCPGraph::lsStepLeft);
  hitRateCumulative_ = addLineGraph(middle, theme::kText, tr("since the server started"));
  hitRateCumulative_->setPen(QPen(theme::kText, 1, Qt::DashLine));
  auto* bottom = addAxisRect();
  bottom->axis(QCPAxis::atLeft)->setLabel(tr("preemptions"));
  preemptions_ = addLineGraph(bottom, theme::kPreempt, tr("preemptions in the interval"));
  preemptions_->setLineStyle(QCPGraph::lsStepLeft);
  // A point per scrape interval at most: dots, so a lone interval with steps still shows.
  for (auto* g : {tokensPerIteration_, hitRate_, hitRateCumulative_, preemptions_})
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
  plot()->legend->setVisible(false);
  addLegendInside(top, {tokensPerIteration_});
  addLegendInside(middle, {hitRate_, hitRateCumulative_});
  addLegendInside(bottom, {preemptions_});
  top->axis(QCPAxis::atLeft)->setRange(0, 16);
  bottom->axis(QCPAxis::atLeft)->setRange(0, 4);
  tokensNotice_ = addNotice(top);
  hitNotice_ = addNotice(middle);
  preemptNotice_ = addNotice(bottom);
}

// The sentence that replaces a plot the server cannot fill, centred in its rect.
QCPItemText* RemoteCountersChart::addNotice(QCPAxisRect* rect) {
  auto* text = new QCPItemText(plot());
  text->setClipAxisRect(rect);
  text->position->setAxisRect(rect);
  text->position->setType(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords(0.5, 0.55);
  text->setPositionAlignment(Qt::AlignCenter);
  text->setColor(theme::kMarker);
  text->setVisible(false);
  return text;
}

void RemoteCountersChart::showExports(const remote::RemoteServerState& s) {
  const remote::CounterExports e = remote::counterExports(s);
  const QString server = QString::fromStdString(remote::serverDisplayName(s.kind));
  auto show = [&](QCPItemText* notice, bool exported, const QString& what) {
    notice->setVisible(!exported);
    notice->setText(exported ? QString() : tr("%1 does not export %2").arg(server, what));
  };
  show(tokensNotice_, e.tokensPerIteration, tr("tokens per engine step"));
  show(hitNotice_, e.prefixHitRate, tr("the prefix-cache hit rate"));
  show(preemptNotice_, e.preemptions, tr("preemptions"));
}

void RemoteCountersChart::addState(double time, const remote::RemoteServerState& s) {
  showExports(s);
  const std::optional<remote::CounterDeltas> d = tracker_.add(time, s);
  if (d) {
    if (d->tokensPerIteration) tokensPerIteration_->addData(time, *d->tokensPerIteration);
    if (d->prefixHitRate) hitRate_->addData(time, 100 * *d->prefixHitRate);
    if (d->prefixHitRateCumulative) hitRateCumulative_->addData(time, 100 * *d->prefixHitRateCumulative);
    if (d->numPreemptions) preemptions_->addData(time, *d->numPreemptions);
  }
  setNow(time);
  fitToVisible(rects()[0]->axis(QCPAxis::atLeft), {tokensPerIteration_}, 8);
  fitToVisible(rects()[2]->axis(QCPAxis::atLeft), {preemptions_}, 2);
  dropOldData();
  replotSoon();
}

void RemoteCountersChart::clear() {
  TimeChart::clear();
  tracker_.reset();
  for (auto* notice : {tokensNotice_, hitNotice_, preemptNotice_}) notice->setVisible(false);
}

std::optional<double> RemoteCountersChart::lastHitRate() const { return lastValue(hitRate_); }
std::optional<double> RemoteCountersChart::lastTokensPerIteration() const { return lastValue(tokensPerIteration_); }

QString RemoteCountersChart::notExportedText() const {
  QStringList out;
  for (auto* notice : {tokensNotice_, hitNotice_, preemptNotice_})
    if (notice->visible()) out << notice->text();
  return out.join('\n');
}

}  // namespace lwb::ui
