// EngineLoop's outbox: events (bounded, copied to subscribers) and the latest snapshot.
#include <chrono>

#include "engine/common/error.h"
#include "engine/engine_loop_impl.h"
#include "engine/model/model.h"

namespace lwb {

namespace {
constexpr size_t kMaxEvents = 100000;
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
  for (const StepRecord& r : engine->takePrefillSteps()) push(r);
  for (const TokenDelta& d : out.deltas) push(d);
  if (out.ranForward()) push(out.record);
  if (!out.error.empty()) push(EngineErrorEvent{engine->now(), out.error, std::nullopt});
  for (RequestId id : out.newlyFinished) {
    const RequestTimeline* t = engine->timeline(id);
    if (!t) continue;
    RequestFinishedEvent fin;
    fin.timeline = *t;
    const std::vector<int>& all = *engine->outputTokenIds(id);
    fin.outputTokenIds.assign(all.begin() + fin.timeline.numPromptTokens, all.end());
    engine->releaseRequest(id);  // everything about it now travels in the event
    push(std::move(fin));
  }
  dirty = true;
}

// Loop thread. Recording is on while a stream lives; a new stream restarts it, which
// reports the whole cached state first.
void EngineLoop::Impl::forwardKvEvents() {
  std::vector<std::shared_ptr<KvEventStream>> live;
  {
    std::lock_guard lock(outMu);
    std::erase_if(kvStreams, [&live](const std::weak_ptr<KvEventStream>& w) {
      auto s = w.lock();
      if (!s) return true;
      live.push_back(std::move(s));
      return false;
    });
  }
  if (newKvStream.exchange(false)) engine->setRecordKvEvents(false);
  engine->setRecordKvEvents(!live.empty());
  std::vector<KvCacheEvent> events = engine->takeKvEvents();
  if (events.empty()) return;
  KvEventBatch batch{std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(),
                     std::move(events)};
  for (const auto& s : live) s->push(batch);
}

void EngineLoop::Impl::publishSnapshot(bool isPaused) {
  auto s = std::make_shared<EngineSnapshot>();
  s->step = engine->numSteps();
  s->time = engine->now();
  s->config = engine->config();
  s->maxModelLen = engine->maxModelLen();
  s->device = engine->deviceInfo();
  s->modelDir = engine->model().dir;
  s->paused = isPaused;
  s->numRunning = engine->numRunning();
  s->numWaiting = engine->numWaiting() + int(held.size());
  s->kvBlocks = engine->kvBlocks();
  s->live = engine->liveTimelines();
  s->totals = engine->totals();
  engine->fillSnapshot(*s);
  std::lock_guard lock(snapMu);
  snap = std::move(s);
  lastSnapshot = std::chrono::steady_clock::now();
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
  fin.timeline.tag = c.input.tag;
  push(std::move(fin));
}

void EngineLoop::Impl::submitToEngine(Command& c) {
  try {
    engine->addRequestWithId(c.id, std::move(c.input));
  } catch (const std::exception& e) {
    finishOutside(c, FinishReason::Rejected, e.what());
  }
}

}  // namespace lwb
