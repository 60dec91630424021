#pragma once
// PdEngine's private state, shared by pd_engine.cpp (the API and the decode side),
// pd_engine_sim.cpp (N:M on one virtual clock) and pd_engine_cpu.cpp (P's thread).
// Not for other includes.
#include <condition_variable>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "engine/pd_engine.h"

namespace lwb {

// A prefilled request on its way from P to D: its prompt's full blocks in the staging
// buffer (CPU; empty on the simulator), P's record of it, and what sending took.
struct PdTransfer {
  RequestId id = 0;
  RequestInput input;               // as submitted: D decodes it with these parameters
  RequestTimeline prefill;          // P's timeline (P's clock)
  int fromPrefill = 0;              // the prefill instance that sent it
  int numBlocks = 0;
  std::vector<char> data;           // [numBlocks, bytes per block]
  // CPU: P's pool → staging. Sim: from P's finish until the last byte lands, the wait
  // for earlier transfers on P's link included.
  double sendSeconds = 0;
  double readyTime = 0;             // sim: when the last byte lands (virtual clock)
  bool holdReleased = false;        // on D: its scheduler has admitted it (holds the blocks itself)
};

// A request on D, or finished before reaching it.
struct PdOutstanding {
  RequestId decodeId = 0;           // 0 until D has it
  int decodeIndex = 0;              // the decode instance that has it
  RequestTimeline merged;           // filled at finish
  std::vector<int> tokenIds;        // the prompt; at finish, prompt and output (Engine's outputTokenIds)
  bool finished = false;
};

constexpr double kNever = std::numeric_limits<double>::infinity();

struct PdEngine::Impl {
  std::shared_ptr<const Model> model;
  PdConfig config;
  std::vector<std::unique_ptr<Engine>> ps, ds;  // prefill, decode instances
  bool sim = false;
  double prefillToDecodeClock = 0;  // D's clock − P's (CPU: the engines started apart)

  // Shared with P's thread (CPU) under `mutex`.
  mutable std::mutex mutex;
  std::condition_variable wake;     // P's inbox or the transfer queue changed
  std::deque<std::pair<RequestId, RequestInput>> inbox;
  std::deque<PdTransfer> transfers;  // CPU: in the order P finished them; sim: by readyTime
  std::vector<RequestTimeline> failed;  // finished on P without a transfer (rejected, error, abort)
  std::set<RequestId> abortedOnPrefill;  // to end when P finishes them
  bool stop = false;
  std::thread prefillThread;
  // Under EngineLoop (step history off): every prefill instance's steps and latest view
  // (views[i]), taken after each of its steps; live knobs for the prefill instances,
  // applied before their next step (on P's thread on the CPU).
  bool keepSteps = true;
  std::deque<StepRecord> prefillSteps;
  std::vector<PrefillView> views;  // per prefill instance
  std::optional<EngineConfig> pendingPrefillConfig;
  // Per prefill instance: its ids → ours; P's thread (or step() on the sim) only.
  std::vector<std::map<RequestId, RequestId>> prefillIds;

  // The simulator's routing and links, per prefill instance.
  std::vector<int64_t> outstandingPrefillTokens;  // prompt tokens of requests it has not finished
  std::vector<double> linkFreeAt;                 // when its outgoing link has sent everything queued
  mutable double lastNow = 0;                     // now() never goes back

  // D's side, the caller's thread only.
  RequestId nextId = 1;
  int numUnfinished = 0;
  std::map<RequestId, PdOutstanding> requests;
  std::vector<std::map<RequestId, RequestId>> decodeIds;  // per decode instance: its ids → ours
  std::map<RequestId, PdTransfer> held;         // received, not yet admitted by D (blocks held)

  // Runs fn on the state P's thread shares: under `mutex` on the CPU.
  template <typename F>
  void shared(F fn) {
    if (sim) {
      fn();
    } else {
      std::lock_guard<std::mutex> lock(mutex);
      fn();
    }
  }
  // pd_engine.cpp
  StepOutput stepPrefill(int i);
  PdTransfer makeTransfer(RequestId id, int from, const RequestTimeline& t, RequestInput input);
  void queueTransfer(PdTransfer x);
  int chooseDecode(const PdTransfer& x) const;
  bool admitFront();
  bool admit(int j);
  void releaseAdmitted();
  void report(int j, const StepOutput& d, StepOutput& out);
  void finishFailed(StepOutput& out);
  int blocksNeeded(const Engine& d, const RequestInput& in) const;
  int blocksPromised(int j) const;
  // pd_engine_loop.cpp
  void afterPrefillStep(int i, const StepOutput& out);
  void applyPendingPrefillConfig();
  // pd_engine_sim.cpp
  RequestId addSimRequest(RequestId id, RequestInput input);
  StepOutput stepSim();
  bool landFront();
  double simNow() const;
  double nextTransferTime() const;
  // pd_engine_cpu.cpp
  void prefillLoop();
  StepOutput stepCpu();
};

}  // namespace lwb
