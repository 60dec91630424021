#include "ui/bridge/sweep_runner.h"

#include <QThread>

#include "engine/model/model.h"

namespace lwb::ui {

SweepRunner::SweepRunner(QObject* parent) : QObject(parent) {
  poll_.setInterval(100);
  connect(&poll_, &QTimer::timeout, this, [this] { emit progress(numFinished_.load(), numTotal_); });
}

SweepRunner::~SweepRunner() {
  if (!thread_) return;
  cancel_ = true;
  thread_->wait();
  delete thread_;
}

bool SweepRunner::start(SweepRequest request) {
  if (thread_ || !request.model || request.values.empty()) return false;
  sweep_ = Sweep{};
  sweep_.key = request.key;
  outcome_ = Outcome::None;
  error_.clear();
  cancel_ = false;
  numFinished_ = 0;
  numTotal_ = request.base.workload.numPrompts * int(request.values.size());
  thread_ = QThread::create([this, request = std::move(request)] { work(request); });
  thread_->setObjectName(QStringLiteral("capacity sweep"));
  connect(thread_, &QThread::finished, this, &SweepRunner::finish);
  thread_->start(QThread::LowPriority);  // the live engine and the GUI come first
  poll_.start();
  return true;
}

void SweepRunner::cancel() { cancel_ = true; }

void SweepRunner::work(const SweepRequest& request) {
  Sweep sweep;
  sweep.key = request.key;
  const int perPoint = request.base.workload.numPrompts;
  threadOutcome_ = Outcome::Finished;
  for (size_t i = 0; i < request.values.size(); ++i) {
    const std::string& value = request.values[i];
    try {
      BenchSetting setting = request.base;
      applySetting(setting, request.key, value);
      const int before = int(i) * perPoint;
      auto onProgress = [this, before](int finished, int) { numFinished_ = before + finished; };
      const BenchRun run = runBenchSetting(request.model, setting, onProgress, &cancel_);
      addSweepRow(sweep, value, run.report, false);
    } catch (const BenchCancelled&) {
      threadOutcome_ = Outcome::Cancelled;
      return;
    } catch (const std::exception& e) {
      threadOutcome_ = Outcome::Failed;
      threadError_ = QStringLiteral("%1 = %2: %3")
                         .arg(QString::fromStdString(request.key), QString::fromStdString(value), QString::fromUtf8(e.what()));
      return;
    }
    // A copy per point (a sweep is a few dozen rows at most): the GUI thread never shares it.
    QMetaObject::invokeMethod(this, [this, sweep, i] {
      sweep_ = sweep;
      emit pointFinished(int(i));
    }, Qt::QueuedConnection);
  }
}

// On the GUI thread, after every point's queued update (they were posted before the
// thread ended).
void SweepRunner::finish() {
  poll_.stop();
  thread_->wait();
  delete thread_;
  thread_ = nullptr;
  outcome_ = threadOutcome_;
  error_ = threadError_;
  threadError_.clear();
  emit progress(numFinished_.load(), numTotal_);
  emit done();
}

}  // namespace lwb::ui
