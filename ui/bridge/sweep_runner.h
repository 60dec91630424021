#pragma once
// Runs a capacity sweep off the GUI thread: one fresh Engine per swept value, built from a
// copy of the window engine's knobs and its model (runBenchSetting, as `bench --sweep`
// runs each value), so the live engine keeps serving untouched. On a simulated engine a
// point takes a fraction of a second; on a real one it shares the cores with the live
// engine. The sweep so far, progress and the outcome reach the GUI thread through queued
// signals; cancel() stops the run between two engine steps.
#include <QObject>
#include <QTimer>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "engine/bench/bench_setting.h"
#include "engine/bench/sweep.h"

class QThread;

namespace lwb::ui {

struct SweepRequest {
  std::shared_ptr<const Model> model;
  BenchSetting base;                // the knobs, workload and SLOs every value starts from
  std::string key;                  // a knob's vLLM name, request_rate or max_concurrency
  std::vector<std::string> values;  // each already checked with applySetting
};

class SweepRunner : public QObject {
  Q_OBJECT
 public:
  enum class Outcome { None, Finished, Cancelled, Failed };

  explicit SweepRunner(QObject* parent = nullptr);
  ~SweepRunner() override;  // cancels a sweep in progress and waits for it

  bool start(SweepRequest request);  // false while a sweep runs
  void cancel();
  bool running() const { return thread_ != nullptr; }
  const Sweep& sweep() const { return sweep_; }  // the points finished so far
  Outcome outcome() const { return outcome_; }
  QString errorText() const { return error_; }
  int numFinishedRequests() const { return numFinished_.load(); }
  int numTotalRequests() const { return numTotal_; }

 signals:
  void progress(int numFinishedRequests, int numTotalRequests);  // about 10 times a second
  void pointFinished(int index);  // sweep() holds it
  void done();                    // outcome() says how it ended

 private:
  void work(const SweepRequest& request);  // on the sweep's thread
  void finish();

  QThread* thread_ = nullptr;
  QTimer poll_;
  Sweep sweep_;
  Outcome outcome_ = Outcome::None;
  QString error_;
  int numTotal_ = 0;
  std::atomic<bool> cancel_{false};
  std::atomic<int> numFinished_{0};
  // Written by the sweep's thread before it ends, read on the GUI thread after.
  Outcome threadOutcome_ = Outcome::None;
  QString threadError_;
};

}  // namespace lwb::ui
