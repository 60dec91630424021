#include "engine/engine_loop.h"

#include <chrono>

#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/engine_loop_impl.h"
#include "engine/model/model.h"
#include "engine/sched/request.h"

namespace lwb {

namespace {
constexpr auto kSnapshotInterval = std::chrono::milliseconds(10);  // wall clock
}

using Command = LoopCommand;

void EngineLoop::Impl::noteConfig() {
  std::lock_guard lock(mu);
  config = engine->config();
  maxModelLen = engine->maxModelLen();
}

// The engine kept (or went back to) the knobs in force: say why, and which they are.
void EngineLoop::Impl::rejectConfig(const std::string& why) {
  noteConfig();
  push(EngineErrorEvent{engine->now(), "setConfig: " + why, engine->config()});
}

void EngineLoop::Impl::swapModel(Command& c) {
  const EngineConfig old = engine->config();
  try {
    engine = makeLoopEngine(c.model, c.config, pd);
    // Arrivals planned on the old engine's virtual clock mean nothing on the new one's.
    for (const auto& [t, f] : future) finishOutside(f, FinishReason::Abort, {});
    future.clear();
    engine->setKeepStepHistory(false);  // steps travel as events
    {
      std::lock_guard lock(mu);
      model = c.model;  // submissions validate against the new vocabulary from now on
    }
    noteConfig();
    push(ModelLoadedEvent{c.model->dir, {}});
    if (const std::string change = describeChange(old, c.config); change != "no change")
      push(ConfigChangedEvent{engine->now(), old, c.config, change});
  } catch (const std::exception& e) {
    push(ModelLoadedEvent{c.model->dir, e.what()});
  }
}

void EngineLoop::Impl::applyStructural(Command& c) {
  if (c.kind == Command::Kind::ModelReady) return swapModel(c);
  const EngineConfig old = engine->config();
  try {
    engine->setConfig(c.config);
    publish(engine->flushFinished());
    noteConfig();
    push(ConfigChangedEvent{engine->now(), old, c.config, describeChange(old, c.config)});
  } catch (const std::exception& e) {
    publish(engine->flushFinished());
    rejectConfig(e.what());
  }
}

// Validated by the caller against the device of the last snapshot; the engine checks
// again against its own (a backend change may be on its way).
void EngineLoop::Impl::applyLive(const Command& c) {
  const EngineConfig old = engine->config();
  try {
    engine->setConfig(c.config);  // applies at the next step
  } catch (const std::exception& e) {
    return rejectConfig(e.what());
  }
  noteConfig();
  push(ConfigChangedEvent{engine->now(), old, c.config, describeChange(old, c.config)});
  if (drainFor)  // a rebuild still waits: it must not bring the older live knobs back
    for (const Knob& k : knobTable())
      if (!k.rebuilds(drainFor->config, c.config) && !k.structural())  // not over a pending draft model switch
        k.set(drainFor->config, k.get(c.config));
}

void EngineLoop::Impl::tryFinishDrain() {
  if (!drainFor || engine->hasUnfinishedRequests()) return;
  Command c = std::move(*drainFor);
  drainFor.reset();
  applyStructural(c);
  while (!held.empty() && !drainFor) {
    Command h = std::move(held.front());
    held.pop_front();
    submitToEngine(h);
  }
}

void EngineLoop::Impl::apply(Command& c) {
  switch (c.kind) {
    case Command::Kind::Submit:
      if (engine->simulated() && c.input.arrivalTime && *c.input.arrivalTime > engine->now())
        future.emplace(*c.input.arrivalTime, std::move(c));  // due later on the virtual clock
      else if (drainFor) held.push_back(std::move(c));
      else submitToEngine(c);
      break;
    case Command::Kind::Abort:
      for (auto it = future.begin(); it != future.end(); ++it)
        if (it->second.id == c.id) {
          finishOutside(it->second, FinishReason::Abort, {});
          future.erase(it);
          return;
        }
      for (auto it = held.begin(); it != held.end(); ++it)
        if (it->id == c.id) {
          finishOutside(*it, FinishReason::Abort, {});
          held.erase(it);
          return;
        }
      engine->abortRequest(c.id);
      break;
    case Command::Kind::AbortAll:
      for (const Command& h : held) finishOutside(h, FinishReason::Abort, {});
      held.clear();
      for (const auto& [t, f] : future) finishOutside(f, FinishReason::Abort, {});
      future.clear();
      for (const RequestTimeline& t : engine->liveTimelines()) engine->abortRequest(t.id);
      break;
    case Command::Kind::Call:
      try {  // here, not in run(): the rest of the batch must still apply
        Engine* colocated = engine->colocated();
        if (!colocated) throw Error("this engine is a prefill/decode pair: a KV connector call needs one engine");
        c.call(*colocated);
      } catch (const std::exception& e) {
        push(EngineErrorEvent{engine->now(), e.what(), std::nullopt});
      }
      dirty = true;
      break;
    case Command::Kind::SetConfig:
      if (!engine->config().structuralDiffers(c.config)) {
        applyLive(c);
        break;
      }
      [[fallthrough]];
    case Command::Kind::ModelReady:
      if (c.abortInFlight) {
        for (const RequestTimeline& t : engine->liveTimelines()) engine->abortRequest(t.id);
        publish(engine->flushFinished());
      }
      if (drainFor && drainFor->kind == Command::Kind::ModelReady && c.kind == Command::Kind::SetConfig)
        drainFor->config = c.config;  // the swap happens with the newer knobs
      else
        drainFor = std::move(c);  // a later structural change replaces an earlier one
      break;
  }
}

void EngineLoop::Impl::releaseDue() {
  // A nanosecond of slack: a clock advanced by exactly the gap may land an ulp short.
  while (!future.empty() && future.begin()->first <= engine->now() + 1e-9) {
    Command c = std::move(future.begin()->second);
    future.erase(future.begin());
    if (drainFor) held.push_back(std::move(c));
    else submitToEngine(c);
  }
}

void EngineLoop::Impl::paceSimulation() {
  if (!engine->simulated()) return;
  const double speed = simulationSpeed();
  const auto wall = std::chrono::steady_clock::now();
  const auto target = paceWall + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>((engine->now() - paceVirtual) / std::max(speed, 1e-9)));
  // A new speed, or behind by more than a moment (a pause, a host slower than the speed
  // asked): pace from here on rather than catch up.
  if (speed <= 0 || speed != paceSpeed || target < wall - std::chrono::milliseconds(250)) {
    paceWall = wall;
    paceVirtual = engine->now();
    paceSpeed = speed;
    return;
  }
  std::unique_lock lock(mu);
  cv.wait_until(lock, target, [&] { return stop || paused; });
}

void EngineLoop::Impl::idleUntilNextArrival() {
  const double gap = future.begin()->first - engine->now();
  const double speed = simulationSpeed();
  if (speed <= 0) {
    engine->advanceClock(gap);
  } else {
    const auto start = std::chrono::steady_clock::now();
    {
      std::unique_lock lock(mu);
      cv.wait_until(lock, start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(gap / speed)),
                    [&] { return stop || paused || !inbox.empty(); });
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    engine->advanceClock(std::min(gap, waited * speed));
  }
  paceWall = std::chrono::steady_clock::now();  // the clocks agree again
  paceVirtual = engine->now();
  paceSpeed = speed;
  dirty = true;
}

void EngineLoop::Impl::run(std::promise<void>& ready) {
  try {
    std::lock_guard lock(mu);
    engine = makeLoopEngine(model, config, pd);
    engine->setKeepStepHistory(false);  // steps travel as events
  } catch (...) {
    ready.set_exception(std::current_exception());
    return;
  }
  noteConfig();
  publishSnapshot(false);
  ready.set_value();
  for (;;) {
    std::deque<Command> batch;
    bool isPaused;
    {
      const bool busy = engine->hasUnfinishedRequests() || drainFor.has_value() || !future.empty();
      std::unique_lock lock(mu);
      if (!busy && inbox.empty() && !stop && dirty) {  // going idle: show the final state
        const bool p = paused;
        lock.unlock();
        publishSnapshot(p);
        lock.lock();
      }
      cv.wait(lock, [&] { return stop || !inbox.empty() || (busy && !paused) || newKvStream; });
      if (stop) return;
      batch.swap(inbox);
      isPaused = paused;
    }
    try {  // nothing may escape the thread: report it and keep serving
      for (Command& c : batch) apply(c);
      if (!isPaused) releaseDue();
      if (!isPaused && engine->hasUnfinishedRequests()) {
        publish(engine->step());
        paceSimulation();
      } else if (!isPaused && !future.empty()) {
        publish(engine->flushFinished());
        idleUntilNextArrival();
      } else {
        publish(engine->flushFinished());
      }
      tryFinishDrain();
      forwardKvEvents();
    } catch (const std::exception& e) {
      push(EngineErrorEvent{engine->now(), e.what(), std::nullopt});
    }
    if (dirty && std::chrono::steady_clock::now() - lastSnapshot >= kSnapshotInterval) publishSnapshot(isPaused);
  }
}

EngineLoop::EngineLoop(std::shared_ptr<const Model> model, const EngineConfig& config)
    : EngineLoop(std::move(model), config, std::nullopt) {}

EngineLoop::EngineLoop(std::shared_ptr<const Model> model, const PdConfig& pd)
    : EngineLoop(std::move(model), pd.decode, pd) {}

EngineLoop::EngineLoop(std::shared_ptr<const Model> model, const EngineConfig& config,
                       const std::optional<PdConfig>& pd)
    : impl_(std::make_unique<Impl>()) {
  check(model != nullptr, "EngineLoop: no model");
  impl_->model = std::move(model);
  impl_->config = config;
  impl_->pd = pd;
  std::promise<void> ready;
  std::future<void> built = ready.get_future();
  impl_->thread = std::thread([this, &ready] { impl_->run(ready); });
  try {
    built.get();
  } catch (...) {
    impl_->thread.join();
    throw;
  }
}

EngineLoop::~EngineLoop() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  impl_->thread.join();
  for (std::thread& t : impl_->loaders) t.join();
}

RequestId EngineLoop::submit(RequestInput input) {
  // Arrival is now, on the caller's thread: waiting for the lock, the step in flight or a
  // pause is queueing time the request's TTFT must show.
  if (!input.arrival) input.arrival = std::chrono::steady_clock::now();
  Impl& d = *impl_;
  std::lock_guard lock(d.mu);
  validateRequest(input.promptTokenIds, input.sampling, d.model->config.vocabSize, d.maxModelLen);
  Command c{Command::Kind::Submit};
  c.id = d.nextId++;
  c.input = std::move(input);
  d.inbox.push_back(std::move(c));
  d.cv.notify_one();
  return d.inbox.back().id;
}

void EngineLoop::abort(RequestId id) {
  std::lock_guard lock(impl_->mu);
  Command c{Command::Kind::Abort};
  c.id = id;
  impl_->inbox.push_back(std::move(c));
  impl_->cv.notify_one();
}

void EngineLoop::runOnEngine(std::function<void(Engine&)> fn) {
  std::lock_guard lock(impl_->mu);
  Command c{Command::Kind::Call};
  c.call = std::move(fn);
  impl_->inbox.push_back(std::move(c));
  impl_->cv.notify_one();
}

void EngineLoop::abortAll() {
  std::lock_guard lock(impl_->mu);
  impl_->inbox.push_back(Command{Command::Kind::AbortAll});
  impl_->cv.notify_one();
}

void EngineLoop::setConfig(const EngineConfig& config, bool abortInFlight) {
  Impl& d = *impl_;
  const auto snap = snapshot();  // the device in use resolves vLLM's batch defaults
  std::lock_guard lock(d.mu);
  config.validateFor(d.model->config.maxPositionEmbeddings, snap ? snap->device : DeviceInfo{});
  Command c{Command::Kind::SetConfig};
  c.config = config;
  c.abortInFlight = abortInFlight;
  d.inbox.push_back(std::move(c));
  d.cv.notify_one();
}

std::optional<PdConfig> EngineLoop::pdConfig() const {
  std::lock_guard lock(impl_->mu);
  return impl_->pd;
}

EngineConfig EngineLoop::config() const {
  std::lock_guard lock(impl_->mu);
  return impl_->config;
}

int EngineLoop::maxModelLen() const {
  std::lock_guard lock(impl_->mu);
  return impl_->maxModelLen;
}

void EngineLoop::setPaused(bool paused) {
  std::lock_guard lock(impl_->mu);
  impl_->paused = paused;
  impl_->cv.notify_one();
}

void EngineLoop::setSimulationSpeed(double speed) {
  std::lock_guard lock(impl_->mu);
  impl_->simSpeed = std::max(speed, 0.0);
  impl_->cv.notify_one();
}

void EngineLoop::loadModel(const std::string& dir) {
  Impl& d = *impl_;
  std::lock_guard lock(d.mu);
  const bool configOnly = d.config.executor.backend == "sim";  // no weights run
  d.loaders.emplace_back([&d, dir, configOnly] {
    std::shared_ptr<const Model> m;
    std::string error;
    try {
      m = configOnly ? loadModelConfigOnly(dir) : lwb::loadModel(dir);
    } catch (const std::exception& e) {
      error = e.what();
    }
    std::lock_guard inner(d.mu);
    if (!m) {
      d.push(ModelLoadedEvent{dir, error});
      return;
    }
    Command c{Command::Kind::ModelReady};
    c.model = std::move(m);
    c.config = d.config;  // the knobs in force (a change queued after this one still applies)
    d.inbox.push_back(std::move(c));
    d.cv.notify_one();
  });
}

std::vector<EngineEvent> EngineLoop::drainEvents() {
  std::lock_guard lock(impl_->outMu);
  std::vector<EngineEvent> out(std::make_move_iterator(impl_->events.begin()),
                               std::make_move_iterator(impl_->events.end()));
  impl_->events.clear();
  impl_->numStepEvents = 0;
  return out;
}

std::shared_ptr<EventSubscriber> EngineLoop::subscribe(size_t capacity) {
  auto s = std::make_shared<EventSubscriber>(capacity);
  std::lock_guard lock(impl_->outMu);
  impl_->subscribers.push_back(s);
  return s;
}

std::shared_ptr<KvEventStream> EngineLoop::subscribeKvEvents(size_t capacity) {
  auto s = std::make_shared<KvEventStream>(capacity);
  {
    std::lock_guard lock(impl_->outMu);
    impl_->kvStreams.push_back(s);
  }
  impl_->newKvStream = true;
  std::lock_guard lock(impl_->mu);
  impl_->cv.notify_one();  // the loop announces the cached state without waiting for work
  return s;
}

std::shared_ptr<const Model> EngineLoop::model() const {
  std::lock_guard lock(impl_->mu);
  return impl_->model;
}

std::shared_ptr<const EngineSnapshot> EngineLoop::snapshot() const {
  std::lock_guard lock(impl_->snapMu);
  return impl_->snap;
}

}  // namespace lwb
