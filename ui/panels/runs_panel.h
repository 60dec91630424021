#pragma once
// Runs dock — the tuning loop: change one knob, run the same workload, compare. Run A is
// the current session (or a file), run B a saved file; their TTFT and ITL distributions
// are overlaid as CDFs and their headline numbers shown side by side.
#include <QWidget>

#include "ui/bridge/run_data.h"

class QCustomPlot;
class QTableWidget;
class QLabel;

namespace lwb::ui {

class RunSource;

class RunsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunsPanel(RunSource* source, QWidget* parent = nullptr);
  // slot 0 = A, 1 = B. Returns an error message or "".
  QString openRun(int slot, const QString& path);
  void setRun(int slot, const RunData& run, const QString& name);
  void useLiveSession();  // A follows the current session
  void refresh();
  QCustomPlot* plot() const { return plot_; }
  const RunData& run(int slot) const { return runs_[slot]; }
  QTableWidget* table() const { return table_; }

 private:
  void plotCdf(int rect, const std::vector<double>& samples, int slot);

  RunSource* source_;
  RunData runs_[2];
  QString names_[2];
  bool live_ = true;
  QLabel* title_;
  QCustomPlot* plot_;
  QTableWidget* table_;
};

}  // namespace lwb::ui
