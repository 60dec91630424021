#include "ui/panels/latency_panel.h"

#include <algorithm>
#include <utility>

#include <QElapsedTimer>
#include <QHeaderView>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "engine/metrics/stats.h"
#include "ui/bridge/run_source.h"
#include "ui/charts/latency_chart.h"
#include "ui/charts/timeline_chart.h"
#include "ui/theme.h"

namespace lwb::ui {

LatencyPanel::LatencyPanel(RunSource* source, QWidget* parent)
    : QWidget(parent), source_(source), chart_(new LatencyChart(this)), timeline_(new TimelineChart(this)),
      table_(new QTableWidget(4, 6, this)) {
  table_->setHorizontalHeaderLabels({tr("mean"), tr("p50"), tr("p90"), tr("p99"), tr("max"), tr("n")});
  const QStringList rows{tr("TTFT (ms)"), tr("ITL (ms)"), tr("TPOT (ms)"), tr("e2e (ms)")};
  const QStringList tips{tr("Time to first token = queueing + prefill"),
                         tr("Inter-token latency: every gap between successive tokens"),
                         tr("Time per output token = (e2e − TTFT) / (output tokens − 1), per request"),
                         tr("End-to-end latency = arrival → last token")};
  table_->setVerticalHeaderLabels(rows);
  for (int r = 0; r < 4; ++r) table_->verticalHeaderItem(r)->setToolTip(tips[r]);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setToolTip(tr("Over completed requests (finish reason stop or length) kept in this session"));
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) {
      auto* item = new QTableWidgetItem(QStringLiteral("–"));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(r, c, item);
    }
  // The Gantt timeline gets its own dock (MainWindow reparents it).
  table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->resizeRowsToContents();
  int h = table_->horizontalHeader()->sizeHint().height() + 4;
  for (int r = 0; r < 4; ++r) h += table_->rowHeight(r);
  table_->setFixedHeight(h);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(chart_, 1);
  layout->addWidget(table_);
  refreshTimer_.setSingleShot(true);
  refreshTimer_.setInterval(500);
  connect(&refreshTimer_, &QTimer::timeout, this, &LatencyPanel::refreshTable);
}

void LatencyPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (tableDirty_) refreshTable();
}

void LatencyPanel::onFrame(const Frame& frame) {
  chart_->onFrame(frame);
  timeline_->onFrame(frame);
  if (!frame.finished.empty() && !refreshTimer_.isActive()) refreshTimer_.start();
}

void LatencyPanel::refreshTable() {
  tableDirty_ = !isVisible();
  if (tableDirty_) return;
  const RunData& run = source_->run();
  if (run.requests.size() == lastCount_ && !run.requests.empty()) return;
  lastCount_ = run.requests.size();
  QElapsedTimer cost;
  cost.start();
  std::vector<double> tpot, e2e;
  for (const auto& t : run.requests) {
    if (t.finishReason == FinishReason::Rejected) continue;  // never ran; aborted ones count (vLLM)
    if (auto v = t.tpot()) tpot.push_back(*v * 1000.0);
    if (auto v = t.e2e()) e2e.push_back(*v * 1000.0);
  }
  std::vector<double> samples[] = {ttftSamplesMs(run), itlSamplesMs(run), std::move(tpot), std::move(e2e)};
  for (int r = 0; r < 4; ++r) {
    const Summary s = summarize(std::move(samples[r]));  // one sort per metric
    const double values[] = {s.mean, s.median, s.p90, s.p99, s.max};
    for (int c = 0; c < 5; ++c)
      table_->item(r, c)->setText(s.count == 0 ? QStringLiteral("–") : QString::number(values[c], 'f', 1));
    table_->item(r, 5)->setText(QString::number(s.count));
  }
  // With a long history (20,000 requests, a million ITL samples) a refresh costs tens of
  // milliseconds of the GUI thread: refresh at most every 20× that, never under 500 ms.
  refreshTimer_.setInterval(std::max(500, int(20 * cost.elapsed())));
}

}  // namespace lwb::ui
