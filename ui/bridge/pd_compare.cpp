#include "ui/bridge/pd_compare.h"

#include <QPointer>
#include <QThread>

#include "engine/bench/bench_runner.h"
#include "engine/engine.h"
#include "engine/model/model.h"
#include "engine/replicated_engine.h"

namespace lwb::ui {

namespace {

RunData runDataOf(const BenchRun& run, const Model& model, const EngineConfig& config, const DeviceInfo& device,
                  const WorkloadOptions& w) {
  RunData r;
  r.modelDir = model.dir;
  r.device = device.name;
  r.initialConfig = config;
  r.hasWorkload = true;
  r.workload = w;
  for (const BenchRequestRecord& rec : run.report.requests) r.requests.push_back(rec.timeline);
  r.steps.assign(run.steps.begin(), run.steps.end());
  return r;
}

PdComparison compare(const std::shared_ptr<const Model>& model, const PdConfig& pd, const WorkloadOptions& w) {
  const std::vector<SyntheticRequest> workload = makeWorkloadFor(w, *model);
  PdComparison out;
  const bool sim = pd.decode.executor.backend == "sim";
  {
    PdEngine engine(model, pd);
    const BenchRun run = runServingBenchmark(engine, workload);
    out.disaggregated = runDataOf(run, *model, pd.decode, engine.deviceInfo(), w);
  }
  const EngineConfig c = colocatedConfigFor(pd);
  if (sim) {
    const int n = pd.numPrefill + pd.numDecode;
    ReplicatedEngine engine(model, c, n);
    const BenchRun run = runServingBenchmark(engine, workload);
    out.colocated = runDataOf(run, *model, c, engine.replica(0).deviceInfo(), w);
    out.disaggregatedName = QObject::tr("P/D %1:%2 (simulated GPUs)").arg(pd.numPrefill).arg(pd.numDecode);
    out.colocatedName = QObject::tr("%1 colocated GPUs, chunked prefill").arg(n);
  } else {
    Engine engine(model, c);
    const BenchRun run = runServingBenchmark(engine, workload);
    out.colocated = runDataOf(run, *model, c, engine.deviceInfo(), w);
    out.disaggregatedName = QObject::tr("P/D, %1 + %2 threads")
                                .arg(pd.prefill.executor.numThreads)
                                .arg(pd.decode.executor.numThreads);
    out.colocatedName = QObject::tr("colocated, %1 threads, chunked prefill").arg(c.executor.numThreads);
  }
  return out;
}

}  // namespace

EngineConfig colocatedConfigFor(const PdConfig& pd) {
  EngineConfig c = pd.decode;
  c.enableChunkedPrefill = true;
  c.kvTransfer = {};
  if (c.executor.backend != "sim") c.executor.numThreads = pd.prefill.executor.numThreads + pd.decode.executor.numThreads;
  return c;
}

PdCompare::PdCompare(QObject* parent) : QObject(parent) {}

PdCompare::~PdCompare() {
  if (thread_) thread_->wait();
}

bool PdCompare::start(std::shared_ptr<const Model> model, const PdConfig& pd, WorkloadOptions workload) {
  if (thread_) return false;
  workload.numPrompts = std::min(workload.numPrompts, kMaxPrompts);
  workload.numBackgroundRequests = std::min(workload.numBackgroundRequests, kMaxPrompts);
  QPointer<PdCompare> self(this);
  thread_ = QThread::create([self, model, pd, workload] {
    try {
      const PdComparison result = compare(model, pd, workload);
      QMetaObject::invokeMethod(self, [self, result] {
        if (self) emit self->finished(result);
      }, Qt::QueuedConnection);
    } catch (const std::exception& e) {
      QMetaObject::invokeMethod(self, [self, msg = QString::fromUtf8(e.what())] {
        if (self) emit self->failed(msg);
      }, Qt::QueuedConnection);
    }
  });
  thread_->setParent(this);
  connect(thread_, &QThread::finished, this, [this] {
    thread_->deleteLater();
    thread_ = nullptr;
  });
  thread_->start();
  return true;
}

}  // namespace lwb::ui
