#include "ui/panels/runs_panel.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

#include "ui/bridge/run_source.h"
#include "ui/bridge/run_export.h"
#include "ui/charts/time_chart.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
const QColor& slotColor(int slot) { return slot == 0 ? theme::kRunA : theme::kRunB; }
}  // namespace

RunsPanel::RunsPanel(RunSource* source, QWidget* parent)
    : QWidget(parent), source_(source), title_(new QLabel(this)), plot_(new QCustomPlot(this)),
      table_(new QTableWidget(this)) {
  auto* openA = new QPushButton(tr("Open A…"), this);
  auto* openB = new QPushButton(tr("Open B…"), this);
  auto* live = new QPushButton(tr("A = this session"), this);
  openA->setToolTip(tr("Compare a saved run (File ▸ Save run…) as A"));
  openB->setToolTip(tr("Compare a saved run as B: change one knob, run the same workload, save, compare"));
  live->setToolTip(tr("Run A follows what the engine is doing now"));
  auto* row = new QHBoxLayout;
  row->addWidget(title_, 1);
  row->addWidget(live);
  row->addWidget(openA);
  row->addWidget(openB);

  stylePlot(plot_);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->plotLayout()->clear();
  for (int i = 0; i < 2; ++i) {
    auto* rect = new QCPAxisRect(plot_);
    plot_->plotLayout()->addElement(0, i, rect);
    styleAxisRect(rect);
    rect->axis(QCPAxis::atBottom)->setLabel(i == 0 ? tr("TTFT (ms)") : tr("ITL (ms)"));
    rect->axis(QCPAxis::atLeft)->setLabel(tr("requests / tokens at or below (%)"));
    rect->axis(QCPAxis::atLeft)->setRange(0, 101);
  }
  auto* legend = new QCPLegend;
  plot_->axisRect(0)->insetLayout()->addElement(legend, Qt::AlignRight | Qt::AlignBottom);
  legend->setLayer(QStringLiteral("legend"));
  legend->setBrush(QColor(0x17, 0x1a, 0x1f, 220));
  legend->setBorderPen(QPen(theme::kGrid));
  legend->setTextColor(theme::kText);
  plot_->legend = legend;

  table_->setColumnCount(3);
  table_->setHorizontalHeaderLabels({tr("A"), tr("B"), tr("B vs A")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(plot_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(row);
  layout->addWidget(split, 1);

  auto pick = [this](int slot) {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open run"), {}, tr("Workbench runs (*.json)"));
    if (path.isEmpty()) return;
    if (const QString err = openRun(slot, path); !err.isEmpty()) QMessageBox::warning(this, tr("Open run"), err);
  };
  connect(openA, &QPushButton::clicked, this, [pick] { pick(0); });
  connect(openB, &QPushButton::clicked, this, [pick] { pick(1); });
  connect(live, &QPushButton::clicked, this, &RunsPanel::useLiveSession);
  auto* timer = new QTimer(this);  // the live run changes slowly; 1 Hz is plenty
  connect(timer, &QTimer::timeout, this, [this] {
    if (live_ && isVisible()) refresh();
  });
  timer->start(1000);
  names_[1] = tr("(none)");
  useLiveSession();
}

QString RunsPanel::openRun(int slot, const QString& path) {
  RunData run;
  if (QString err = openRunJson(path, &run); !err.isEmpty()) return err;
  setRun(slot, run, QFileInfo(path).fileName());
  return {};
}

void RunsPanel::setRun(int slot, const RunData& run, const QString& name) {
  if (slot == 0) live_ = false;
  runs_[slot] = run;
  names_[slot] = name;
  refresh();
}

void RunsPanel::useLiveSession() {
  live_ = true;
  names_[0] = tr("this session");
  refresh();
}

void RunsPanel::plotCdf(int rect, const std::vector<double>& samples, int slot) {
  auto* r = plot_->axisRect(rect);
  auto* g = plot_->addGraph(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
  g->setPen(QPen(slotColor(slot), 1.5));
  g->setName(QStringLiteral("%1: %2").arg(slot == 0 ? "A" : "B", names_[slot]));
  g->setLineStyle(QCPGraph::lsStepLeft);
  if (rect == 1) g->removeFromLegend();
  std::vector<double> v = samples;
  std::sort(v.begin(), v.end());
  // At most ~2000 points per curve: a CDF needs no more to look exact.
  const size_t stride = std::max<size_t>(1, v.size() / 2000);
  QVector<double> x, y;
  for (size_t i = 0; i < v.size(); i += stride) {
    x << v[i];
    y << 100.0 * double(i + 1) / double(v.size());
  }
  if (!v.empty()) {
    x << v.back();
    y << 100.0;
  }
  g->setData(x, y, true);
}

void RunsPanel::refresh() {
  if (live_) runs_[0] = source_->run();
  title_->setText(tr("<b style='color:%1'>A</b>: %2 &nbsp; <b style='color:%3'>B</b>: %4")
                      .arg(theme::htmlColor(theme::kRunA), names_[0].toHtmlEscaped(), theme::htmlColor(theme::kRunB),
                           names_[1].toHtmlEscaped()));
  plot_->clearGraphs();
  BenchReport s[2];
  double maxTtft = 1, maxItl = 1;
  for (int slot = 0; slot < 2; ++slot) {
    const auto ttft = ttftSamplesMs(runs_[slot]), itl = itlSamplesMs(runs_[slot]);
    if (ttft.empty() && slot == 1) continue;
    plotCdf(0, ttft, slot);
    plotCdf(1, itl, slot);
    for (double v : ttft) maxTtft = std::max(maxTtft, v);
    for (double v : itl) maxItl = std::max(maxItl, v);
    s[slot] = summarizeRun(runs_[slot]);
  }
  plot_->axisRect(0)->axis(QCPAxis::atBottom)->setRange(0, maxTtft * 1.05);
  plot_->axisRect(1)->axis(QCPAxis::atBottom)->setRange(0, maxItl * 1.05);
  plot_->replot(QCustomPlot::rpQueuedReplot);

  using Field = double (*)(const BenchReport&);
  struct Line {
    QString name;
    Field field;  // null: the completed count
    bool lowerIsBetter;
  };
  const std::vector<Line> lines{
      {"completed", nullptr, false},
      {"request_throughput (req/s)", [](const BenchReport& r) { return r.requestThroughput; }, false},
      {"output_throughput (tok/s)", [](const BenchReport& r) { return r.outputThroughput; }, false},
      {"mean_ttft_ms", [](const BenchReport& r) { return r.ttftMs.mean; }, true},
      {"median_ttft_ms", [](const BenchReport& r) { return r.ttftMs.median; }, true},
      {"p99_ttft_ms", [](const BenchReport& r) { return r.ttftMs.p99; }, true},
      {"mean_itl_ms", [](const BenchReport& r) { return r.itlMs.mean; }, true},
      {"median_itl_ms", [](const BenchReport& r) { return r.itlMs.median; }, true},
      {"p99_itl_ms", [](const BenchReport& r) { return r.itlMs.p99; }, true},
      {"mean_tpot_ms", [](const BenchReport& r) { return r.tpotMs.mean; }, true},
      {"p99_tpot_ms", [](const BenchReport& r) { return r.tpotMs.p99; }, true},
      {"mean_e2el_ms", [](const BenchReport& r) { return r.e2elMs.mean; }, true},
      {"p99_e2el_ms", [](const BenchReport& r) { return r.e2elMs.p99; }, true},
      {"prefix_cache_hit_rate (%)", [](const BenchReport& r) { return 100.0 * r.prefixCacheHitRate; }, false}};
  table_->setRowCount(int(lines.size()));
  for (int i = 0; i < int(lines.size()); ++i) {
    const auto& l = lines[size_t(i)];
    table_->setVerticalHeaderItem(i, new QTableWidgetItem(l.name));
    double v[2];
    for (int slot = 0; slot < 2; ++slot) {
      v[slot] = l.field ? l.field(s[slot]) : double(s[slot].completed);
      auto* item = new QTableWidgetItem(QString::number(v[slot], 'f', l.field ? 2 : 0));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(i, slot, item);
    }
    QString delta;
    QColor color = theme::kMutedText;
    if (s[1].completed > 0 && v[0] != 0) {
      const double pct = 100.0 * (v[1] - v[0]) / std::abs(v[0]);
      delta = QStringLiteral("%1%2%").arg(pct >= 0 ? "+" : "").arg(pct, 0, 'f', 1);
      if (std::abs(pct) >= 2 && l.field) color = ((pct < 0) == l.lowerIsBetter) ? theme::kRunning : theme::kPreempt;
    }
    auto* item = new QTableWidgetItem(delta);
    item->setForeground(color);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(i, 2, item);
  }
  table_->resizeColumnsToContents();
}

}  // namespace lwb::ui
