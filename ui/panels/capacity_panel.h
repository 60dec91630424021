#pragma once
// Capacity dock: how many requests per second the engine the window shows can serve
// within SLOs. It runs a sweep — one benchmark per value of request_rate, max_concurrency
// or any knob, the same seeded workload each time — off the GUI thread, on fresh engines
// built from a copy of the live engine's knobs and model (SweepRunner), with progress and
// Cancel; draws p99 TTFT and ITL against the value with the SLO lines, goodput and the
// saturation point (CapacityChart), and says in words where the knee is and which SLO
// breaks first. Each new sweep becomes A and the previous A becomes B, so changing one
// knob and sweeping again overlays the two; sweeps save and reopen as the files
// `llm-workbench bench --sweep --json` writes.
#include <QWidget>
#include <optional>
#include <utility>

#include "engine/bench/sweep.h"
#include "engine/bench/workload.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;

namespace lwb::ui {

class CapacityChart;
class EngineBridge;
class SweepRunner;
class WorkloadForm;

class CapacityPanel : public QWidget {
  Q_OBJECT
 public:
  explicit CapacityPanel(EngineBridge* bridge, QWidget* parent = nullptr);

  // The form (what a sweep run from the window does).
  void setSweptKey(const QString& key);     // a knob's vLLM name, request_rate or max_concurrency
  void setValues(const QString& text);      // "1,2,4,8"
  void setGoodput(const QString& spec);     // vLLM's syntax, "ttft:500 tpot:50"; "" = no SLOs
  void setMaxConcurrency(int n);            // 0 = no limit
  void setWorkload(const WorkloadOptions& w);

  // Checks the form (every value against its range) and starts the sweep; false with
  // errorText() naming the field and value when it cannot.
  bool start();
  void cancel();
  bool running() const;
  QString errorText() const { return error_; }  // why start() refused, or why the last sweep failed

  // slot 0 = A, 1 = B.
  const std::optional<Sweep>& sweep(int slot) const { return sweeps_[slot]; }
  void setSweep(int slot, std::optional<Sweep> sweep, const QString& name);
  QString openSweep(int slot, const QString& path);        // "" or an error naming the file
  QString saveSweep(int slot, const QString& path) const;  // likewise

  CapacityChart* chart() const { return chart_; }
  QProgressBar* progressBar() const { return progress_; }
  QString lesson() const;  // the words under the chart
  QString status() const;  // the line under the buttons: running, finished, cancelled, failed

  // The window's engine changed (MainWindow::showSimulated): defaults that suit it (a
  // simulated GPU takes thousands of requests a second, a CPU tens), then the sweeps'
  // own SIMULATED mark over the one the window put on every chart.
  void engineChanged(bool simulated);

 signals:
  void runningChanged(bool running);
  void sweepDone();  // finished, cancelled or failed: status() says which

 private:
  void buildForm(QWidget* host);
  void onPoint();
  void onDone();
  void redraw();
  void applyBanner();
  void setStatus(const QString& text, bool error = false);
  std::optional<GoodputSlo> goodput() const;  // throws lwb::Error naming the item

  EngineBridge* bridge_;
  SweepRunner* runner_;
  CapacityChart* chart_;
  WorkloadForm* workload_;
  QComboBox* key_;
  QLineEdit *values_, *goodput_;
  QSpinBox* concurrency_;
  QProgressBar* progress_;
  QLabel *title_, *lesson_, *status_;
  std::optional<Sweep> sweeps_[2];
  QString names_[2];
  std::pair<std::optional<Sweep>, QString> stashed_[2];  // A and B before the sweep running
  QString runningName_;
  int numValues_ = 0;
  std::optional<bool> simulatedDefaults_;  // which defaults the form holds
  QString error_;
};

}  // namespace lwb::ui
