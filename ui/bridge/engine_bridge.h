#pragma once
// The GUI side of the engine thread. A ~30 Hz timer drains the EngineLoop's events and
// takes its latest snapshot, keeps a bounded history of the run (RunData) and hands one
// Frame per tick to the views — never one signal per token. Lives on the GUI thread.
#include <QObject>
#include <QTimer>
#include <memory>

#include "engine/engine_loop.h"
#include "ui/bridge/frame.h"
#include "ui/bridge/run_data.h"
#include "ui/bridge/run_source.h"

namespace lwb {
struct Model;
}

namespace lwb::ui {

class EngineBridge : public RunSource {
  Q_OBJECT
 public:
  // Bounded history: an hour of load keeps the newest of each.
  static constexpr size_t kMaxRequests = 20000;
  static constexpr size_t kMaxSteps = 200000;

  explicit EngineBridge(QObject* parent = nullptr);
  ~EngineBridge() override;

  // Takes over `loop` (built for `model`); the previous loop is destroyed, which aborts
  // its requests. Views get engineAttached() and restart their time axes.
  void attach(std::shared_ptr<const Model> model, std::shared_ptr<EngineLoop> loop);
  bool attached() const { return loop_ != nullptr; }
  // The views' one door to the engine thread is this class's methods below; loop() is
  // for tests only.
  EngineLoop* loop() const { return loop_.get(); }
  std::shared_ptr<EngineLoop> sharedLoop() const { return loop_; }  // for a second front-end (the API)
  const Model* model() const { return model_.get(); }
  std::shared_ptr<const Model> sharedModel() const { return model_; }  // for work off the GUI thread (a sweep)
  std::shared_ptr<const EngineSnapshot> lastSnapshot() const { return lastSnapshot_; }

  // Throws lwb::Error when no engine is attached or the request is invalid.
  RequestId submit(RequestInput input);
  // No-ops when no engine is attached.
  void abort(RequestId id);
  void abortAll();
  void setPaused(bool paused);
  // Throws lwb::Error on an invalid config or when no engine is attached.
  void setConfig(const EngineConfig& config, bool abortInFlight = false);
  // The knobs in force (EngineConfig{} before a model is attached).
  EngineConfig config() const;
  int maxModelLen() const;  // the effective max_model_len in force; 0 when none
  std::shared_ptr<const EngineSnapshot> snapshot() const;  // the loop's latest, not this tick's
  void setWorkload(const WorkloadOptions& w);

  const RunData& run() const override { return run_; }
  void clearHistory();  // Engine ▸ Reset: forget finished requests and steps

 public slots:
  void poll();  // one tick; also called by tests

 signals:
  void engineAttached();  // followed by runReset()

 private:
  void record(Frame& frame);

  std::shared_ptr<const Model> model_;
  std::shared_ptr<EngineLoop> loop_;
  std::shared_ptr<const EngineSnapshot> lastSnapshot_;
  RunData run_;
  QTimer timer_;
};

}  // namespace lwb::ui
