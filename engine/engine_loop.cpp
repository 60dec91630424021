#include "engine/engine_loop.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "engine/sched/request.h"

namespace lwb {

namespace {

constexpr size_t kMaxEvents = 100000;
constexpr double kSnapshotInterval = 0.010;  // seconds

// A "0" knob: vLLM's default for the device.
std::string knobValue(int v) { return v == 0 ? std::string("default") : std::to_string(v); }

// "max_num_batched_tokens 2048 → 512, enable_chunked_prefill on → off"
std::string describeChange(const EngineConfig& a, const EngineConfig& b) {
  std::string out;
  auto add = [&out](const char* knob, const std::string& from, const std::string& to) {
    if (from == to) return;
    if (!out.empty()) out += ", ";
    out += std::string(knob) + " " + from + " \u2192 " + to;
  };
  auto onOff = [](bool v) { return std::string(v ? "on" : "off"); };
  using std::to_string;
  add("max_num_batched_tokens", knobValue(a.maxNumBatchedTokens), knobValue(b.maxNumBatchedTokens));
  add("max_num_seqs", knobValue(a.maxNumSeqs), knobValue(b.maxNumSeqs));
  add("enable_chunked_prefill", onOff(a.enableChunkedPrefill), onOff(b.enableChunkedPrefill));
  add("enable_prefix_caching", onOff(a.enablePrefixCaching), onOff(b.enablePrefixCaching));
  add("long_prefill_token_threshold", to_string(a.longPrefillTokenThreshold), to_string(b.longPrefillTokenThreshold));
  add("scheduling_policy", schedulingPolicyName(a.schedulingPolicy), schedulingPolicyName(b.schedulingPolicy));
  add("max_model_len", to_string(a.maxModelLen), to_string(b.maxModelLen));
  add("scheduler_reserve_full_isl", onOff(a.schedulerReserveFullIsl), onOff(b.schedulerReserveFullIsl));
  add("block_size", to_string(a.blockSize), to_string(b.blockSize));
  add("kv_cache_memory_bytes", to_string(a.kvCacheMemoryBytes), to_string(b.kvCacheMemoryBytes));
  add("num_gpu_blocks_override", to_string(a.numGpuBlocksOverride), to_string(b.numGpuBlocksOverride));
  add("backend", a.executor.backend, b.executor.backend);
  add("threads", to_string(a.executor.numThreads), to_string(b.executor.numThreads));
  add("gpu_memory_utilization", to_string(a.executor.gpuMemoryUtilization), to_string(b.executor.gpuMemoryUtilization));
  auto spec = [](const SpeculativeConfig& c) { return c.enabled() ? c.toJson() : std::string("off"); };
  add("speculative_config", spec(a.speculative), spec(b.speculative));
  return out.empty() ? "no change" : out;
}

// One inbox entry; applied on the loop thread in the order submitted.
struct Command {
  enum class Kind { Submit, Abort, AbortAll, SetConfig, ModelReady } kind;
  RequestId id = 0;
  RequestInput input;
  EngineConfig config;
  bool abortInFlight = false;
  std::shared_ptr<const Model> model;
};

}  // namespace

struct EngineLoop::Impl {
  // Guarded by mu: the inbox and what callers validate against.
  mutable std::mutex mu;
  std::condition_variable cv;
  std::deque<Command> inbox;
  bool paused = false, stop = false;
  EngineConfig config;                  // as last requested
  std::shared_ptr<const Model> model;   // the one serving (or about to)
  RequestId nextId = 1;
  std::vector<std::thread> loaders;
  std::map<RequestId, std::string> tags;  // of unfinished requests

  std::mutex outMu;  // events and subscribers
  std::deque<EngineEvent> events;
  std::vector<std::weak_ptr<EventSubscriber>> subscribers;
  size_t numStepEvents = 0;
  mutable std::mutex snapMu;
  std::shared_ptr<const EngineSnapshot> snap;

  // Loop thread only.
  std::thread thread;
  std::unique_ptr<Engine> engine;
  std::deque<Command> held;             // submissions held while draining
  std::optional<Command> drainFor;      // structural config or model swap waiting for idle
  double lastSnapshot = -1;
  bool dirty = true;

  void run(std::promise<void>& ready);
  void apply(Command& c);
  void submitToEngine(Command& c);
  void finishOutside(const Command& c, FinishReason reason, const std::string& error);
  void applyStructural(Command& c);
  void tryFinishDrain();
  void publish(const StepOutput& out);
  void push(EngineEvent e);
  void publishSnapshot(bool isPaused);
  std::string takeTag(RequestId id);
};

std::string EngineLoop::Impl::takeTag(RequestId id) {
  std::lock_guard lock(mu);
  auto it = tags.find(id);
  if (it == tags.end()) return {};
  std::string tag = std::move(it->second);
  tags.erase(it);
  return tag;
}

void EngineLoop::Impl::push(EngineEvent e) {
  std::lock_guard lock(outMu);
  std::erase_if(subscribers, [&e](const std::weak_ptr<EventSubscriber>& w) {
    auto s = w.lock();
    if (s) s->push(e);
    return !s;
  });
  if (std::holds_alternative<StepRecord>(e)) ++numStepEvents;
  events.push_back(std::move(e));
  while (events.size() > kMaxEvents) {  // drop the oldest step record first
    auto it = events.begin();
    if (numStepEvents > 0)
      while (!std::holds_alternative<StepRecord>(*it)) ++it;
    if (std::holds_alternative<StepRecord>(*it)) --numStepEvents;
    events.erase(it);
  }
}

void EngineLoop::Impl::publish(const StepOutput& out) {
  for (const TokenDelta& d : out.deltas) push(d);
  if (out.ranForward()) push(out.record);
  if (!out.error.empty()) push(EngineErrorEvent{engine->now(), out.error});
  for (RequestId id : out.newlyFinished) {
    const RequestTimeline* t = engine->timeline(id);
    if (!t) continue;
    RequestFinishedEvent fin;
    fin.timeline = *t;
    const std::vector<int>& all = *engine->outputTokenIds(id);
    fin.outputTokenIds.assign(all.begin() + fin.timeline.numPromptTokens, all.end());
    engine->releaseRequest(id);  // everything about it now travels in the event
    fin.tag = takeTag(id);
    push(std::move(fin));
  }
  dirty = true;
}

void EngineLoop::Impl::publishSnapshot(bool isPaused) {
  auto s = std::make_shared<EngineSnapshot>();
  s->step = engine->numSteps();
  s->time = engine->now();
  s->config = engine->config();
  s->device = engine->deviceInfo();
  s->modelDir = engine->model().dir;
  s->paused = isPaused;
  s->numRunning = engine->numRunning();
  s->numWaiting = engine->numWaiting() + int(held.size());
  s->kvBlocks = engine->kvBlocks();
  s->live = engine->liveTimelines();
  EngineTotals t = engine->totals();
  s->totalPrefixQueryTokens = t.prefixQueryTokens;
  s->totalPrefixHitTokens = t.prefixHitTokens;
  s->totalPreemptions = t.preemptions;
  s->totalGeneratedTokens = t.generatedTokens;
  s->totals = t;
  std::lock_guard lock(snapMu);
  snap = std::move(s);
  lastSnapshot = engine->now();
  dirty = false;
}

// A request that never reached the engine (aborted while held, or invalid by the
// time it arrived): report it as the engine would.
void EngineLoop::Impl::finishOutside(const Command& c, FinishReason reason, const std::string& error) {
  TokenDelta d;
  d.id = c.id;
  d.finished = true;
  d.finishReason = reason;
  push(d);
  RequestFinishedEvent fin;
  fin.timeline.id = c.id;
  fin.timeline.priority = c.input.priority;
  fin.timeline.numPromptTokens = int(c.input.promptTokenIds.size());
  fin.timeline.finishTime = engine->now();
  fin.timeline.arrivalTime = c.input.arrival ? engine->timeOf(*c.input.arrival) : *fin.timeline.finishTime;
  fin.timeline.finishReason = reason;
  fin.timeline.error = error;
  fin.tag = takeTag(c.id);
  push(std::move(fin));
}

void EngineLoop::Impl::submitToEngine(Command& c) {
  try {
    engine->addRequestWithId(c.id, std::move(c.input));
  } catch (const std::exception& e) {
    finishOutside(c, FinishReason::Rejected, e.what());
  }
}

void EngineLoop::Impl::applyStructural(Command& c) {
  if (c.kind == Command::Kind::ModelReady) {
    const EngineConfig old = engine->config();
    try {
      engine = std::make_unique<Engine>(c.model, c.config);
      engine->setKeepStepHistory(false);  // steps travel as events
      {
        std::lock_guard lock(mu);
        model = c.model;  // submissions validate against the new vocabulary from now on
      }
      push(ModelLoadedEvent{c.model->dir, {}});
      if (old.structuralDiffers(c.config) || describeChange(old, c.config) != "no change")
        push(ConfigChangedEvent{engine->now(), old, c.config, describeChange(old, c.config)});
    } catch (const std::exception& e) {
      push(ModelLoadedEvent{c.model->dir, e.what()});
    }
    return;
  }
  const EngineConfig old = engine->config();
  try {
    engine->setConfig(c.config);
    publish(engine->flushFinished());
    push(ConfigChangedEvent{engine->now(), old, c.config, describeChange(old, c.config)});
  } catch (const std::exception& e) {
    push(EngineErrorEvent{engine->now(), std::string("setConfig: ") + e.what()});
  }
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
      if (drainFor) held.push_back(std::move(c));
      else submitToEngine(c);
      break;
    case Command::Kind::Abort:
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
      for (const RequestTimeline& t : engine->liveTimelines()) engine->abortRequest(t.id);
      break;
    case Command::Kind::SetConfig:
      if (!engine->config().structuralDiffers(c.config)) {
        const EngineConfig old = engine->config();
        engine->setConfig(c.config);  // validated by the caller; applies at the next step
        push(ConfigChangedEvent{engine->now(), old, c.config, describeChange(old, c.config)});
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

void EngineLoop::Impl::run(std::promise<void>& ready) {
  try {
    std::lock_guard lock(mu);
    engine = std::make_unique<Engine>(model, config);
    engine->setKeepStepHistory(false);  // steps travel as events
  } catch (...) {
    ready.set_exception(std::current_exception());
    return;
  }
  publishSnapshot(false);
  ready.set_value();
  for (;;) {
    std::deque<Command> batch;
    bool isPaused;
    {
      const bool busy = engine->hasUnfinishedRequests() || drainFor.has_value();
      std::unique_lock lock(mu);
      if (!busy && inbox.empty() && !stop && dirty) {  // going idle: show the final state
        const bool p = paused;
        lock.unlock();
        publishSnapshot(p);
        lock.lock();
      }
      cv.wait(lock, [&] { return stop || !inbox.empty() || (busy && !paused); });
      if (stop) return;
      batch.swap(inbox);
      isPaused = paused;
    }
    try {  // nothing may escape the thread: report it and keep serving
      for (Command& c : batch) apply(c);
      if (!isPaused && engine->hasUnfinishedRequests()) publish(engine->step());
      else publish(engine->flushFinished());
      tryFinishDrain();
    } catch (const std::exception& e) {
      push(EngineErrorEvent{engine->now(), e.what()});
    }
    if (dirty && engine->now() - lastSnapshot >= kSnapshotInterval) publishSnapshot(isPaused);
  }
}

EngineLoop::EngineLoop(std::shared_ptr<const Model> model, const EngineConfig& config)
    : impl_(std::make_unique<Impl>()) {
  check(model != nullptr, "EngineLoop: no model");
  config.validate();  // the rest (model, device) when the engine is built
  impl_->model = std::move(model);
  impl_->config = config;
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
  validateRequest(input.promptTokenIds, input.sampling, d.model->config.vocabSize,
                  d.config.effectiveMaxModelLen(d.model->config));
  Command c{Command::Kind::Submit};
  c.id = d.nextId++;
  if (!input.tag.empty()) d.tags[c.id] = input.tag;
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

std::string EngineLoop::tagOf(RequestId id) const {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->tags.find(id);
  return it == impl_->tags.end() ? std::string() : it->second;
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
  config.validateFor(d.model->config, snap ? snap->device : DeviceInfo{});
  Command c{Command::Kind::SetConfig};
  c.config = config;
  c.abortInFlight = abortInFlight;
  d.config = config;
  d.inbox.push_back(std::move(c));
  d.cv.notify_one();
}

EngineConfig EngineLoop::config() const {
  std::lock_guard lock(impl_->mu);
  return impl_->config;
}

void EngineLoop::setPaused(bool paused) {
  std::lock_guard lock(impl_->mu);
  impl_->paused = paused;
  impl_->cv.notify_one();
}

void EngineLoop::loadModel(const std::string& dir) {
  Impl& d = *impl_;
  std::lock_guard lock(d.mu);
  d.loaders.emplace_back([&d, dir] {
    std::shared_ptr<const Model> m;
    std::string error;
    try {
      m = lwb::loadModel(dir);
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
    c.config = d.config;
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

std::shared_ptr<const Model> EngineLoop::model() const {
  std::lock_guard lock(impl_->mu);
  return impl_->model;
}

std::shared_ptr<const EngineSnapshot> EngineLoop::snapshot() const {
  std::lock_guard lock(impl_->snapMu);
  return impl_->snap;
}

}  // namespace lwb
