#pragma once
// The remote server's batches and prefix cache over time, from the differences of its
// /metrics counters between two scrapes (server_counters.h): mean tokens per engine
// step, the prefix-cache hit rate of each interval (and since the server started), and
// the preemptions of each interval. A figure the server does not export is not drawn as
// zeros: its plot says "llama.cpp does not export ..." instead.
#include <optional>

#include "remote/server_counters.h"
#include "ui/charts/time_chart.h"

namespace lwb::ui {

class RemoteCountersChart : public TimeChart {
  Q_OBJECT
 public:
  explicit RemoteCountersChart(QWidget* parent = nullptr);
  // One good scrape (time: seconds since connecting); the first one only sets the baseline.
  void addState(double time, const remote::RemoteServerState& state);
  void clear() override;

  // For tests: what is drawn and what is said instead.
  int numTokensPerIterationPoints() const { return tokensPerIteration_->data()->size(); }
  int numHitRatePoints() const { return hitRate_->data()->size(); }
  int numPreemptionPoints() const { return preemptions_->data()->size(); }
  std::optional<double> lastHitRate() const;  // percent
  std::optional<double> lastTokensPerIteration() const;
  QString notExportedText() const;  // the sentences shown over the plots, one per line

 private:
  void showExports(const remote::RemoteServerState& s);
  QCPItemText* addNotice(QCPAxisRect* rect);

  QCPGraph *tokensPerIteration_, *hitRate_, *hitRateCumulative_, *preemptions_;
  QCPItemText *tokensNotice_, *hitNotice_, *preemptNotice_;
  remote::CounterDeltaTracker tracker_;
};

}  // namespace lwb::ui
