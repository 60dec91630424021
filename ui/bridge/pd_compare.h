#pragma once
// "Compare with colocated chunked prefill": one workload run twice off the GUI thread,
// on a prefill/decode pair and on the colocated design on the same hardware — on the
// CPU one engine with the pair's threads together, on the simulator as many colocated
// replicas as the pair has GPUs — each with chunked prefill on, as the bench runner runs
// them (engine/bench/bench_runner.h). The two runs arrive on the GUI thread as RunData
// for the Runs view.
#include <QObject>
#include <memory>

#include "engine/pd_engine.h"
#include "ui/bridge/run_data.h"

class QThread;

namespace lwb::ui {

struct PdComparison {
  RunData disaggregated, colocated;
  QString disaggregatedName, colocatedName;  // as the Runs view titles them
};

class PdCompare : public QObject {
  Q_OBJECT
 public:
  explicit PdCompare(QObject* parent = nullptr);
  ~PdCompare() override;  // waits for a comparison in progress

  // False while one runs. `workload`: the load generator's (its prompt count capped).
  bool start(std::shared_ptr<const Model> model, const PdConfig& pd, WorkloadOptions workload);
  bool running() const { return thread_ != nullptr; }
  static constexpr int kMaxPrompts = 200;  // each run's; a long load would hold the cores for minutes

 signals:
  void finished(const lwb::ui::PdComparison& result);
  void failed(const QString& message);

 private:
  QThread* thread_ = nullptr;
};

// The colocated engine's knobs for `pd`: the decode instance's, chunked prefill on; on the
// CPU the pair's threads together.
EngineConfig colocatedConfigFor(const PdConfig& pd);

}  // namespace lwb::ui
