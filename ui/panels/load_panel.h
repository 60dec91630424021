#pragma once
// Load generator dock: the `bench` workload (makeWorkload: random prompts with a shared
// prefix, Poisson arrivals) submitted through the same EngineLoop as the chats, each
// request at its arrival time, with a progress bar. Stop aborts what is still in flight.
#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>
#include <optional>
#include <unordered_set>

#include "engine/bench/arrival_pacer.h"
#include "engine/bench/workload.h"
#include "ui/bridge/frame.h"

class QProgressBar;
class QLabel;

namespace lwb::ui {

class EngineBridge;
class WorkloadForm;

class LoadPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LoadPanel(EngineBridge* bridge, QWidget* parent = nullptr);

  WorkloadOptions options() const;
  void setOptions(const WorkloadOptions& w);
  bool start();  // false with a message when the options are invalid or no model
  void stop();
  bool running() const { return !plan_.empty() && (!pacer_.allTaken() || !inFlight_.empty()); }
  int numFinished() const { return numFinished_; }
  void onFrame(const Frame& frame);

 signals:
  void runningChanged(bool running);

 private:
  void submitDue();
  void updateProgress();

  EngineBridge* bridge_;
  WorkloadForm* form_;
  QProgressBar* progress_;
  QLabel* status_;

  std::vector<SyntheticRequest> plan_;
  ArrivalPacer pacer_;
  int numFinished_ = 0;
  std::unordered_set<RequestId> inFlight_;
  QElapsedTimer clock_;
  QTimer timer_;
  std::optional<double> simulatedStart_;  // a simulated engine: the run's start on its virtual clock
};

}  // namespace lwb::ui
