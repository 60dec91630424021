#include "ui/bridge/engine_bridge.h"

#include <type_traits>

#include "engine/common/error.h"
#include "engine/model/model.h"

namespace lwb::ui {

EngineBridge::EngineBridge(QObject* parent) : RunSource(parent) {
  timer_.setInterval(33);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &EngineBridge::poll);
}

EngineBridge::~EngineBridge() = default;

void EngineBridge::attach(std::shared_ptr<const Model> model, std::shared_ptr<EngineLoop> loop) {
  timer_.stop();
  loop_.reset();  // joins the old engine thread before the new one serves
  model_ = std::move(model);
  loop_ = std::move(loop);
  lastSnapshot_ = loop_ ? loop_->snapshot() : nullptr;
  run_.clear();
  if (model_) run_.modelDir = model_->dir;
  if (loop_) {
    run_.initialConfig = loop_->config();
    if (lastSnapshot_) run_.device = lastSnapshot_->device.name;
    timer_.start();
  }
  emit engineAttached();
  emit runReset();
}

RequestId EngineBridge::submit(RequestInput input) {
  check(loop_ != nullptr, "no model is loaded yet");
  return loop_->submit(std::move(input));
}

void EngineBridge::abort(RequestId id) {
  if (loop_) loop_->abort(id);
}

void EngineBridge::abortAll() {
  if (loop_) loop_->abortAll();
}

void EngineBridge::setPaused(bool paused) {
  if (loop_) loop_->setPaused(paused);
}

void EngineBridge::setConfig(const EngineConfig& config, bool abortInFlight) {
  check(loop_ != nullptr, "no model is loaded yet");
  loop_->setConfig(config, abortInFlight);
}

EngineConfig EngineBridge::config() const { return loop_ ? loop_->config() : EngineConfig{}; }

int EngineBridge::maxModelLen() const { return loop_ ? loop_->maxModelLen() : 0; }

std::shared_ptr<const EngineSnapshot> EngineBridge::snapshot() const {
  return loop_ ? loop_->snapshot() : nullptr;
}

void EngineBridge::setWorkload(const WorkloadOptions& w) {
  run_.hasWorkload = true;
  run_.workload = w;
}

void EngineBridge::clearHistory() {
  const RunData old = run_;
  run_.clear();
  run_.modelDir = old.modelDir;
  run_.device = old.device;
  run_.initialConfig = loop_ ? loop_->config() : old.initialConfig;
}

void EngineBridge::poll() {
  if (!loop_) return;
  Frame frame;
  for (auto& event : loop_->drainEvents()) {
    std::visit(
        [&frame](auto&& e) {
          using T = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<T, TokenDelta>) frame.deltas.push_back(std::move(e));
          else if constexpr (std::is_same_v<T, StepRecord>)
            (e.instance == StepRecord::Instance::Prefill ? frame.prefillSteps : frame.steps).push_back(std::move(e));
          else if constexpr (std::is_same_v<T, RequestFinishedEvent>) frame.finished.push_back(std::move(e));
          else if constexpr (std::is_same_v<T, ConfigChangedEvent>) frame.configChanges.push_back(std::move(e));
          else if constexpr (std::is_same_v<T, EngineErrorEvent>) frame.errors.push_back(std::move(e));
          else frame.modelLoads.push_back(std::move(e));
        },
        event);
  }
  frame.snapshot = loop_->snapshot();
  frame.snapshotChanged = frame.snapshot && frame.snapshot != lastSnapshot_;
  lastSnapshot_ = frame.snapshot;
  record(frame);
  if (frame.hasEvents() || frame.snapshotChanged) emit frameReady(frame);
}

void EngineBridge::record(Frame& frame) {
  for (const auto& s : frame.steps) run_.steps.push_back(s);
  for (const auto& f : frame.finished) run_.requests.push_back(f.timeline);
  for (const auto& c : frame.configChanges) run_.knobChanges.push_back({c.time, c.description, c.newConfig});
  run_.trim(kMaxRequests, kMaxSteps);
}

}  // namespace lwb::ui
