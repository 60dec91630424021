#pragma once
// Base of every chart whose x axis is engine time (s): one QCustomPlot with one or more
// stacked axis rects sharing the x range, a live window that follows "now" until the
// user drags or zooms (double-click or Live returns to it), and knob-change markers
// drawn on every rect so cause and effect line up across charts.
#include <QWidget>
#include <qcustomplot.h>

#include "ui/bridge/throttle.h"

class QToolButton;
class QLabel;

namespace lwb::ui {

// Dark styling for a plot and its axes, shared by all charts.
void styleAxisRect(QCPAxisRect* rect);
void stylePlot(QCustomPlot* plot);
QCPGraph* addLineGraph(QCPAxisRect* rect, const QColor& color, const QString& name, bool y2 = false);

class TimeChart : public QWidget {
  Q_OBJECT
 public:
  explicit TimeChart(const QString& hint, QWidget* parent = nullptr);

  QCustomPlot* plot() const { return plot_; }
  // Advances the live window to end at `now` (seconds) when following.
  void setNow(double now);
  double now() const { return now_; }
  void setWindowSeconds(double s);
  bool following() const { return follow_; }
  // A dashed vertical line with a label on every axis rect.
  void addKnobMarker(double time, const QString& label);
  virtual void clear();  // engine restarted: time begins at 0 again
  // Coalesced and capped at ~12 Hz (data still arrives at the bridge's 30 Hz): redraws
  // cost GUI-thread CPU that the engine thread would otherwise use. Hidden charts skip.
  void replotSoon();
  // When following: fits `axis` to [0, max of `graphs` in the visible time range] + headroom.
  void fitToVisible(QCPAxis* axis, const QList<QCPGraph*>& graphs, double minTop = 1);
  // A one-row legend placed above `rect` (outside the data) listing `plottables`.
  QCPLegend* addLegendAbove(QCPAxisRect* rect, const QList<QCPAbstractPlottable*>& plottables);
  // A one-row legend inside `rect`, top-left, on a semi-opaque background: costs the plot
  // no height (new data enters at the right edge, so the top-left is mostly empty).
  QCPLegend* addLegendInside(QCPAxisRect* rect, const QList<QCPAbstractPlottable*>& plottables);
  // Every axis rect keeps at least this many pixels of height (the plot's minimum height
  // follows the number of rects), so a crowded dock scrolls or tabs instead of squashing.
  static constexpr int kMinRectHeight = 80;

 protected:
  void showEvent(QShowEvent* e) override;
  // Axis rects after the first; they share the x range of the first.
  QCPAxisRect* addAxisRect();
  QList<QCPAxisRect*> rects() const { return rects_; }
  static constexpr double kKeepSeconds = 900;  // data older than now − this is dropped
  // Removes data older than now − kKeepSeconds from every graph (sliding window).
  void dropOldData();

 private:
  void setFollow(bool follow);
  void syncRanges(const QCPRange& range);
  void fillRowLegend(QCPLegend* legend, const QList<QCPAbstractPlottable*>& plottables);
  void updateMinimumHeight();

  QCustomPlot* plot_;
  QToolButton* liveButton_;
  QList<QCPAxisRect*> rects_;
  QList<QCPAbstractItem*> markers_;
  double now_ = 0, windowSeconds_ = 60;
  bool follow_ = true, syncing_ = false;
  // At most one replot per 80 ms; the trailing one shows the last data.
  Throttle replot_{80, [this] {
    if (isVisible()) plot_->replot(QCustomPlot::rpQueuedReplot);
  }};
};

}  // namespace lwb::ui
