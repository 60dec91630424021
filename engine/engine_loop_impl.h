#pragma once
// EngineLoop's private state, shared by engine_loop.cpp (the inbox and the loop thread)
// and engine_loop_outbox.cpp (events and snapshots). Not for other includes.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/engine_loop.h"

namespace lwb {

// One inbox entry; applied on the loop thread in the order submitted.
struct LoopCommand {
  enum class Kind { Submit, Abort, AbortAll, SetConfig, ModelReady } kind;
  RequestId id = 0;
  RequestInput input;
  EngineConfig config;
  bool abortInFlight = false;
  std::shared_ptr<const Model> model;
};

struct EngineLoop::Impl {
  using Command = LoopCommand;

  // Guarded by mu: the inbox, and what callers read and validate against.
  mutable std::mutex mu;
  std::condition_variable cv;
  std::deque<Command> inbox;
  bool paused = false, stop = false;
  EngineConfig config;                  // in force: the engine's, copied by noteConfig()
  int maxModelLen = 0;                  // effective, in force (the engine's)
  std::shared_ptr<const Model> model;   // the one serving (or about to)
  RequestId nextId = 1;
  std::vector<std::thread> loaders;

  std::mutex outMu;  // events and subscribers
  std::deque<EngineEvent> events;
  std::vector<std::weak_ptr<EventSubscriber>> subscribers;
  size_t numStepEvents = 0;
  std::vector<std::weak_ptr<KvEventStream>> kvStreams;
  std::atomic<bool> newKvStream{false};
  mutable std::mutex snapMu;
  std::shared_ptr<const EngineSnapshot> snap;

  // Loop thread only.
  std::thread thread;
  std::unique_ptr<Engine> engine;
  std::deque<Command> held;             // submissions held while draining
  std::optional<Command> drainFor;      // structural config or model swap waiting for idle
  double lastSnapshot = -1;
  bool dirty = true;

  // engine_loop.cpp
  void run(std::promise<void>& ready);
  void apply(Command& c);
  void applyLive(const Command& c);
  void applyStructural(Command& c);
  void swapModel(Command& c);
  void tryFinishDrain();
  void noteConfig();  // the engine's knobs are the ones callers see
  void rejectConfig(const std::string& why);
  // engine_loop_outbox.cpp
  void submitToEngine(Command& c);
  void finishOutside(const Command& c, FinishReason reason, const std::string& error);
  void publish(const StepOutput& out);
  void push(EngineEvent e);
  void publishSnapshot(bool isPaused);
  void forwardKvEvents();
};

}  // namespace lwb
