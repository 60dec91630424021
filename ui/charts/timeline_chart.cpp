#include "ui/charts/timeline_chart.h"

#include <algorithm>
#include <cmath>

#include "ui/models/prefix_miss_text.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
QCPBars* makeBars(QCustomPlot* plot, const QColor& color, const QString& name) {
  auto* bars = new QCPBars(plot->yAxis, plot->xAxis);  // horizontal: key axis is y
  bars->setName(name);
  bars->setWidth(0.7);
  bars->setPen(Qt::NoPen);
  bars->setBrush(color);
  return bars;
}
}  // namespace

TimelineChart::TimelineChart(QWidget* parent)
    : TimeChart(tr("Newest %1 requests, one row each: queued → prefill → decode.").arg(kRows), parent) {
  QCustomPlot* p = plot();
  offset_ = makeBars(p, Qt::transparent, QString());
  queue_ = makeBars(p, theme::kQueue, tr("queued"));
  prefill_ = makeBars(p, theme::kPrefill, tr("prefill"));
  transfer_ = makeBars(p, theme::kTransfer, tr("KV transfer (P/D)"));
  decode_ = makeBars(p, theme::kDecode, tr("decode"));
  queue_->moveAbove(offset_);
  prefill_->moveAbove(queue_);
  transfer_->moveAbove(prefill_);
  decode_->moveAbove(transfer_);
  p->legend->setVisible(false);
  offset_->removeFromLegend();
  addLegendAbove(p->axisRect(), {queue_, prefill_, transfer_, decode_});
  p->yAxis->setLabel(tr("request id"));
  p->yAxis->setRangeReversed(true);
  p->yAxis->grid()->setVisible(false);
  p->yAxis->setRange(-0.6, kRows - 0.4);
  highlight_ = new QCPItemRect(p);
  highlight_->setPen(QPen(theme::kAccent, 2));
  highlight_->setBrush(Qt::NoBrush);
  highlight_->setVisible(false);
  highlight_->setClipToAxisRect(true);
  connect(p, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    const int row = int(std::lround(plot()->yAxis->pixelToCoord(e->position().y())));
    plot()->setToolTip(rowToolTip(row));
  });
}

QString TimelineChart::rowToolTip(int row) const {
  if (row < 0 || row >= int(rows_.size())) return {};
  const RequestTimeline& t = rows_[size_t(row)];
  QString s = tr("request %1").arg(t.id);
  if (t.prefixMiss.accounted) s += QStringLiteral(": ") + prefixMissTooltip(t);
  if (t.kvTransferTime)
    s += tr("\nKV transfer, prefill → decode instance: %1 ms, %2 KiB (the wait on the link included)")
             .arg(*t.kvTransferTime * 1e3, 0, 'f', 2)
             .arg(double(t.kvTransferBytes) / 1024.0, 0, 'f', 0);
  return s;
}

int TimelineChart::numTransferSegments() const {
  int n = 0;
  for (auto it = transfer_->data()->constBegin(); it != transfer_->data()->constEnd(); ++it) n += it->value > 0;
  return n;
}

void TimelineChart::clear() {
  TimeChart::clear();
  finished_.clear();
  rows_.clear();
  for (auto* b : {offset_, queue_, prefill_, transfer_, decode_}) b->data()->clear();
}

void TimelineChart::setClientSide(bool clientSide) {
  clientSide_ = clientSide;
  prefill_->setName(clientSide ? tr("until first token (queue + prefill)") : tr("prefill"));
  decode_->setName(clientSide ? tr("streaming") : tr("decode"));
  plot()->yAxis->setLabel(clientSide ? tr("request") : tr("request id"));
}

void TimelineChart::setSelectedRequest(RequestId id) {
  selected_ = id;
  rebuild(now());
  replotSoon();
}

void TimelineChart::onFrame(const Frame& frame) {
  for (const auto& c : frame.configChanges) addKnobMarker(c.time, QString::fromStdString(c.description));
  for (const auto& f : frame.finished) finished_[f.timeline.id] = f.timeline;
  while (finished_.size() > size_t(kRows)) finished_.erase(finished_.begin());
  if (!frame.snapshot) return;
  snapshot_ = frame.snapshot;
  if (frame.hasEvents() || frame.snapshotChanged) rebuild(frame.snapshot->time);
  setNow(frame.snapshot->time);
}

void TimelineChart::rebuild(double now) {
  // Newest requests by id (ids grow with arrival), live and finished together.
  std::map<RequestId, const RequestTimeline*> all;
  for (const auto& [id, t] : finished_) all[id] = &t;
  if (snapshot_)
    for (const auto& t : snapshot_->live) all[t.id] = &t;
  rows_.clear();
  for (auto it = all.rbegin(); it != all.rend() && int(rows_.size()) < kRows; ++it) rows_.push_back(*it->second);
  std::reverse(rows_.begin(), rows_.end());

  QVector<double> keys, offs, queue, prefill, transfer, decode;
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  highlight_->setVisible(false);
  for (int row = 0; row < int(rows_.size()); ++row) {
    const auto& t = rows_[row];
    const double end = t.finishTime.value_or(now);
    // A client knows no scheduling time: its rows start "until first token" at arrival.
    const double scheduled = t.firstScheduledTime.value_or(clientSide_ ? std::min(t.arrivalTime, end) : end);
    const double first = t.firstTokenTime.value_or(t.firstScheduledTime || clientSide_ ? end : scheduled);
    // A P/D pair's request: prefill on P until its KV blocks leave, the transfer, then
    // the decode instance (its admission and the prompt's last block included).
    double prefillEnd = first, sending = 0;
    if (t.kvTransferStartTime && t.kvTransferTime) {
      prefillEnd = std::clamp(*t.kvTransferStartTime, scheduled, std::max(scheduled, end));
      sending = std::clamp(*t.kvTransferTime, 0.0, std::max(0.0, end - prefillEnd));
    }
    keys << row;
    offs << t.arrivalTime;
    queue << scheduled - t.arrivalTime;
    prefill << prefillEnd - scheduled;
    transfer << sending;
    decode << std::max(0.0, end - prefillEnd - sending);
    ticker->addTick(row, QString::number(t.id));
    if (t.id == selected_) {
      highlight_->topLeft->setCoords(t.arrivalTime, row - 0.5);
      highlight_->bottomRight->setCoords(end, row + 0.5);
      highlight_->setVisible(true);
    }
  }
  // Show exactly the rows in use; label every k-th row when they get too dense.
  const int numRows = std::max(8, int(rows_.size()));
  plot()->yAxis->setRange(-0.6, numRows - 0.4);
  const int rowPx = std::max(1, plot()->axisRect()->height() / numRows);
  const int every = std::max(1, (plot()->fontMetrics().height() + 2) / rowPx + 1);
  if (every > 1) {
    QSharedPointer<QCPAxisTickerText> thin(new QCPAxisTickerText);
    for (int row = 0; row < int(rows_.size()); row += every) thin->addTick(row, QString::number(rows_[size_t(row)].id));
    ticker = thin;
  }
  if (!rows_.empty()) {
    // Time window: from the oldest row's arrival to now.
    setWindowSeconds(std::max(2.0, (now - rows_.front().arrivalTime) * 1.08));
  }
  offset_->setData(keys, offs, true);
  queue_->setData(keys, queue, true);
  prefill_->setData(keys, prefill, true);
  transfer_->setData(keys, transfer, true);
  decode_->setData(keys, decode, true);
  plot()->yAxis->setTicker(ticker);
}

}  // namespace lwb::ui
