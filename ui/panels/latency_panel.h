#pragma once
// Latency dock: TTFT / ITL over time, the per-request Gantt timeline and a table of
// p50 / p90 / p99 (ms) for TTFT, ITL, TPOT and e2e over the finished requests.
#include <QTimer>
#include <QWidget>

#include "ui/bridge/frame.h"

class QTableWidget;

namespace lwb::ui {

class RunSource;
class LatencyChart;
class TimelineChart;

class LatencyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LatencyPanel(RunSource* source, QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  LatencyChart* chart() const { return chart_; }
  TimelineChart* timeline() const { return timeline_; }
  QTableWidget* table() const { return table_; }
  void refreshTable();

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  // Percentiles sort every sample kept (ITL: one per token), so the table refreshes at
  // most twice a second, and only while visible (on show otherwise).
  QTimer refreshTimer_;
  bool tableDirty_ = false;
  RunSource* source_;
  LatencyChart* chart_;
  TimelineChart* timeline_;
  QTableWidget* table_;
  size_t lastCount_ = size_t(-1);
};

}  // namespace lwb::ui
