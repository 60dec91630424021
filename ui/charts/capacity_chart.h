#pragma once
// The Capacity view's chart: up to two sweeps (A and B, the Runs view's colours) against
// the swept value, in three stacked plots sharing the x axis:
//   p99 TTFT, with the TTFT SLO line;
//   p99 ITL (solid) and p99 TPOT (dashed), with the TPOT SLO line (goodput judges TPOT);
//   goodput (solid) and throughput (dashed) in req/s, and for a request_rate sweep the
//   offered load (dotted): throughput follows it until the engine saturates.
// Each sweep's saturation point is a vertical dashed line through all three. Latencies use
// a log scale: past the knee TTFT grows by orders of magnitude. The x axis is the values
// themselves when every value is a number, else one evenly spaced tick per value.
#include <QWidget>
#include <optional>

#include "engine/bench/sweep.h"

class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
class QCPAbstractItem;
class QCPLegend;

namespace lwb::ui {

class CapacityChart : public QWidget {
  Q_OBJECT
 public:
  enum class Series { Ttft, Itl, Tpot, Goodput, Throughput };

  explicit CapacityChart(QWidget* parent = nullptr);

  // Redraws with these sweeps (null: the slot is empty).
  void setSweeps(const Sweep* a, const Sweep* b);
  QCustomPlot* plot() const { return plot_; }
  QCPGraph* graph(int slot, Series series) const;  // null when the slot is empty
  // Where the slot's saturation mark stands on the x axis; none without one.
  std::optional<double> saturationX(int slot) const { return saturationX_[slot]; }
  // The x position of a swept value under the current axis.
  double xOf(const std::string& value) const;

 private:
  void plotSweep(int slot, const Sweep& sweep);
  void addSloLine(QCPAxisRect* rect, double ms, const QString& label);
  void addSaturationMark(int slot, const Sweep& sweep, size_t index);
  void setAxes(const Sweep* a, const Sweep* b);
  void fitLatencyAxis(QCPAxisRect* rect, std::vector<double> values);

  QCustomPlot* plot_;
  QCPAxisRect *ttftRect_, *itlRect_, *rateRect_;
  QCPLegend *itlLegend_, *rateLegend_;  // what the line styles mean, from the first sweep shown
  QList<QCPAbstractItem*> items_;  // SLO lines and saturation marks (not the SIMULATED banner)
  QCPGraph* graphs_[2][5] = {};
  std::optional<double> saturationX_[2];
  bool numericX_ = true;
  QStringList labels_;  // the values in order, when the axis is not numeric
};

}  // namespace lwb::ui
