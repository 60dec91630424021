#pragma once
// EngineLoop's private state, shared by engine_loop.cpp (the inbox and the loop thread)
// and engine_loop_outbox.cpp (events and snapshots). Not for other includes.
#include <atomic>
#include <condition_variable>
#include <chrono>
#include <deque>
#include <map>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/engine_loop.h"
#include "engine/loop_engine.h"

namespace lwb {

// One inbox entry; applied on the loop thread in the order submitted.
struct LoopCommand {
  enum class Kind { Submit, Abort, AbortAll, SetConfig, ModelReady, Call } kind;
  RequestId id = 0;
  RequestInput input;
  EngineConfig config;
  bool abortInFlight = false;
  std::shared_ptr<const Model> model;
  std::function<void(Engine&)> call;  // Kind::Call
};

struct EngineLoop::Impl {
  using Command = LoopCommand;

  // Guarded by mu: the inbox, and what callers read and validate against.
  mutable std::mutex mu;
  std::condition_variable cv;
  std::deque<Command> inbox;
  bool paused = false, stop = false;
  double simSpeed = 1;                  // setSimulationSpeed (0 = as fast as possible)
  EngineConfig config;                  // in force: the engine's, copied by noteConfig()
  int maxModelLen = 0;                  // effective, in force (the engine's)
  std::shared_ptr<const Model> model;   // the one serving (or about to)
  RequestId nextId = 1;
  std::optional<PdConfig> pd;           // set: the loop runs a prefill/decode pair
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
  std::unique_ptr<LoopEngine> engine;  // an Engine, or a PdEngine when `pd` is set
  std::deque<Command> held;             // submissions held while draining
  std::optional<Command> drainFor;      // structural config or model swap waiting for idle
  std::chrono::steady_clock::time_point lastSnapshot;  // wall clock: a virtual one may race ahead
  bool dirty = true;
  // A simulated engine: submissions due later on its clock, and the anchor that paces the
  // virtual clock against the wall clock (reset after a pause or a speed change).
  std::multimap<double, Command> future;
  std::chrono::steady_clock::time_point paceWall;
  double paceVirtual = 0, paceSpeed = -1;

  // engine_loop.cpp
  void run(std::promise<void>& ready);
  void apply(Command& c);
  void applyLive(const Command& c);
  void applyStructural(Command& c);
  void swapModel(Command& c);
  void tryFinishDrain();
  void noteConfig();  // the engine's knobs are the ones callers see
  void rejectConfig(const std::string& why);
  double simulationSpeed() {
    std::lock_guard lock(mu);
    return simSpeed;
  }
  void releaseDue();           // simulated: submissions whose arrival time came
  void paceSimulation();       // simulated: after a step, wait for the wall clock
  void idleUntilNextArrival(); // simulated: nothing to run before the next arrival
  // engine_loop_outbox.cpp
  void submitToEngine(Command& c);
  void finishOutside(const Command& c, FinishReason reason, const std::string& error);
  void publish(const StepOutput& out);
  void push(EngineEvent e);
  void publishSnapshot(bool isPaused);
  void forwardKvEvents();
};

}  // namespace lwb
