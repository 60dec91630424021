#include "engine/pd_engine.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/exec/executor.h"
#include "engine/kv/kv_cache_manager.h"

namespace lwb {

double kvLinkSeconds(const KvLink& link, int64_t bytes) {
  return link.latencyUs * 1e-6 + double(bytes) / (link.bandwidthGBps * 1e9);
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A prefilled request on its way from P to D: its prompt's full blocks in the staging
// buffer (CPU; empty on the simulator), P's record of it, and what sending took.
struct Transfer {
  RequestId id = 0;
  RequestInput input;               // as submitted: D decodes it with these parameters
  RequestTimeline prefill;          // P's timeline (P's clock)
  int numBlocks = 0;
  std::vector<char> data;           // [numBlocks, bytes per block]
  double sendSeconds = 0;           // P's pool → staging (CPU), or the link's time (sim)
  double readyTime = 0;             // sim: when the last byte lands on D (virtual clock)
};

// A request on D, or finished before reaching it.
struct Outstanding {
  RequestId decodeId = 0;           // 0 until D has it
  RequestTimeline merged;           // filled at finish
  bool finished = false;
};

}  // namespace

struct PdEngine::Impl {
  std::shared_ptr<const Model> model;
  PdConfig config;
  std::unique_ptr<Engine> p, d;
  bool sim = false;
  double prefillToDecodeClock = 0;  // D's clock − P's (CPU: the engines started apart)

  // Shared with P's thread (CPU) under `mutex`.
  mutable std::mutex mutex;
  std::condition_variable wake;     // P's inbox or the transfer queue changed
  std::deque<std::pair<RequestId, RequestInput>> inbox;
  std::deque<Transfer> transfers;   // in the order P finished them
  std::vector<RequestTimeline> failed;  // finished on P without a transfer (rejected, error, abort)
  std::set<RequestId> abortedOnPrefill;  // to end when P finishes them
  bool stop = false;
  std::thread prefillThread;
  std::map<RequestId, RequestId> prefillIds;  // P's id → ours; P's thread (or step() on the sim) only

  // D's side, the caller's thread only.
  RequestId nextId = 1;
  int numUnfinished = 0;
  std::map<RequestId, Outstanding> requests;
  std::map<RequestId, RequestId> decodeIds;   // D's id → ours
  std::map<RequestId, Transfer> held;         // received, not yet admitted by D (blocks held)

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
  void prefillLoop();
  void stepPrefill();
  Transfer makeTransfer(RequestId id, const RequestTimeline& t, RequestInput input);
  bool admitFront();
  void releaseAdmitted();
  void report(const StepOutput& d, StepOutput& out);
  void finishFailed(StepOutput& out);
  int blocksNeeded(const RequestInput& in) const;
};

PdEngine::PdEngine(std::shared_ptr<const Model> model, const PdConfig& config) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.model = model;
  m.config = config;
  for (const EngineConfig* c : {&config.prefill, &config.decode}) {
    check(c->enablePrefixCaching, std::string(knob::kEnablePrefixCaching) +
                                      " off: P/D disaggregation finds a request's blocks through the prefix "
                                      "cache on both instances; turn it on");
    check(c->executor.backend == "cpu" || c->executor.backend == "sim",
          std::string(knob::kBackend) + " " + c->executor.backend + ": P/D disaggregation runs on cpu or sim");
  }
  check(config.prefill.blockSize == config.decode.blockSize && config.prefill.executor.backend ==
                                                                   config.decode.executor.backend,
        "P/D disaggregation: the prefill and decode instances need the same " + std::string(knob::kBackend) +
            " and " + std::string(knob::kBlockSize));
  kvLinkPreset(config.transfer.link);  // a bad link: the error now
  m.p = std::make_unique<Engine>(model, config.prefill);
  m.d = std::make_unique<Engine>(model, config.decode);
  m.sim = m.d->simulated();
  check(m.p->executor().kvBytesPerBlock(config.prefill.blockSize) ==
            m.d->executor().kvBytesPerBlock(config.decode.blockSize),
        "P/D disaggregation: the instances' KV blocks differ in size (" + std::string(knob::kKvCacheDtype) + ")");
  if (!m.sim) {
    const auto t = std::chrono::steady_clock::now();
    m.prefillToDecodeClock = m.d->timeOf(t) - m.p->timeOf(t);
    m.prefillThread = std::thread([&m] { m.prefillLoop(); });
  }
}

PdEngine::~PdEngine() {
  if (impl_->prefillThread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      impl_->stop = true;
    }
    impl_->wake.notify_all();
    impl_->prefillThread.join();
  }
}

Engine& PdEngine::prefillEngine() { return *impl_->p; }
Engine& PdEngine::decodeEngine() { return *impl_->d; }
bool PdEngine::simulated() const { return impl_->sim; }
bool PdEngine::hasUnfinishedRequests() const { return impl_->numUnfinished > 0; }

int PdEngine::numWaitingTransfers() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return int(impl_->transfers.size());
}

int PdEngine::numKvHolds() const { return int(impl_->held.size()); }

// The simulator's clock is the earlier of the two instances' (a request due then has
// arrived on both); on the CPU, D's.
double PdEngine::now() const { return impl_->sim ? std::min(impl_->p->now(), impl_->d->now()) : impl_->d->now(); }

void PdEngine::advanceClock(double seconds) {
  check(impl_->sim, "PdEngine::advanceClock: the CPU backend's clock is the wall clock");
  const double to = now() + seconds;
  for (Engine* e : {impl_->p.get(), impl_->d.get()}) {
    if (e->now() < to) e->advanceClock(to - e->now());
  }
}

const RequestTimeline* PdEngine::timeline(RequestId id) const {
  auto it = impl_->requests.find(id);
  return it != impl_->requests.end() && it->second.finished ? &it->second.merged : nullptr;
}

RequestId PdEngine::addRequest(RequestInput input) {
  Impl& m = *impl_;
  if (!input.arrival) input.arrival = std::chrono::steady_clock::now();
  if (m.sim && !input.arrivalTime) input.arrivalTime = now();
  const RequestId id = m.nextId++;
  m.requests[id] = {};
  ++m.numUnfinished;
  if (m.sim) {
    RequestInput onPrefill = input;
    onPrefill.sampling.maxTokens = 1;  // as vLLM's proxy sends it to the prefill instance
    onPrefill.sampling.minTokens = 0;
    m.prefillIds[m.p->addRequest(std::move(onPrefill))] = id;
    m.inbox.emplace_back(id, std::move(input));  // kept for D's parameters
    return id;
  }
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    m.inbox.emplace_back(id, std::move(input));
  }
  m.wake.notify_all();
  return id;
}

void PdEngine::abortRequest(RequestId id) {
  Impl& m = *impl_;
  auto it = m.requests.find(id);
  if (it == m.requests.end() || it->second.finished) return;
  if (it->second.decodeId != 0) {
    m.d->abortRequest(it->second.decodeId);
    return;
  }
  m.shared([&] {
    auto x = std::find_if(m.transfers.begin(), m.transfers.end(), [&](const Transfer& t) { return t.id == id; });
    if (x == m.transfers.end()) {
      m.abortedOnPrefill.insert(id);
      return;
    }
    RequestTimeline f = x->prefill;
    f.id = id;
    f.finishReason = FinishReason::Abort;
    m.failed.push_back(std::move(f));
    m.transfers.erase(x);
  });
}

// The prompt's blocks that D will find as a prefix hit: full blocks, the last token left
// out (D computes it, and P sampled from it).
Transfer PdEngine::Impl::makeTransfer(RequestId id, const RequestTimeline& t, RequestInput input) {
  Transfer x;
  x.id = id;
  x.prefill = t;
  x.input = std::move(input);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<int> blocks = p->cachedPrefixBlockIds(x.input.promptTokenIds);
  x.numBlocks = int(blocks.size());
  const size_t perBlock = p->executor().kvBytesPerBlock(p->kvBlockSize());
  if (p->executor().holdsKvData()) {
    x.data.resize(perBlock * blocks.size());
    for (size_t i = 0; i < blocks.size(); ++i) p->executor().readKvBlock(blocks[i], x.data.data() + i * perBlock);
    x.sendSeconds = secondsSince(start);
  } else {
    x.sendSeconds = kvLinkSeconds(kvLinkPreset(config.transfer.link), int64_t(perBlock * blocks.size()));
    x.readyTime = p->now() + x.sendSeconds;
  }
  return x;
}

// One step of P; its finished requests become transfers (or failures). Runs on P's thread
// (CPU) or the caller's (sim); the inputs of the requests it finishes come from `inbox`.
void PdEngine::Impl::stepPrefill() {
  const StepOutput out = p->step();
  for (RequestId pid : out.newlyFinished) {
    const RequestTimeline t = *p->timeline(pid);
    const RequestId id = prefillIds.at(pid);
    prefillIds.erase(pid);
    p->releaseRequest(pid);
    RequestInput input;
    shared([&] {
      auto in = std::find_if(inbox.begin(), inbox.end(), [&](const auto& e) { return e.first == id; });
      input = std::move(in->second);
      inbox.erase(in);
    });
    bool aborted = false;
    shared([&] { aborted = abortedOnPrefill.erase(id) > 0; });
    if (t.completed() && !aborted) {
      Transfer x = makeTransfer(id, t, std::move(input));  // before P's next step may evict the blocks
      shared([&] { transfers.push_back(std::move(x)); });
    } else {
      RequestTimeline f = t;
      f.id = id;
      if (aborted) f.finishReason = FinishReason::Abort;
      shared([&] { failed.push_back(std::move(f)); });
    }
  }
  wake.notify_all();
}

// P's thread: takes new requests (kept in `inbox` until P finishes them, for D), steps P
// while it has work, sleeps otherwise.
void PdEngine::Impl::prefillLoop() {
  size_t numTaken = 0;  // inbox entries already on P (the inbox keeps them until they finish)
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] { return stop || numTaken < inbox.size() || p->hasUnfinishedRequests(); });
      if (stop) return;
      for (; numTaken < inbox.size(); ++numTaken) {
        RequestInput onPrefill = inbox[numTaken].second;
        onPrefill.sampling.maxTokens = 1;
        onPrefill.sampling.minTokens = 0;
        prefillIds[p->addRequest(std::move(onPrefill))] = inbox[numTaken].first;
      }
    }
    const size_t before = prefillIds.size();
    stepPrefill();
    std::lock_guard<std::mutex> lock(mutex);
    numTaken -= before - prefillIds.size();  // finished ones left the inbox
  }
}

int PdEngine::Impl::blocksNeeded(const RequestInput& in) const {
  const int bs = d->kvBlockSize();
  const int tokens = int(in.promptTokenIds.size()) + in.sampling.maxTokens;
  return std::min((tokens + bs - 1) / bs, d->numKvBlocks());
}

// Receives the oldest transfer when D has room for its whole sequence (or is idle and
// its blocks fit): its blocks into D's pool under a hold, the request into D's queue.
// Returns false when it has to wait. Called with `mutex` held on the CPU.
bool PdEngine::Impl::admitFront() {
  if (transfers.empty()) return false;
  Transfer& x = transfers.front();
  if (sim && x.readyTime > d->now()) return false;
  const bool idle = !d->hasUnfinishedRequests() && held.empty();
  if (!idle && d->numFreeKvBlocks() < blocksNeeded(x.input)) return false;
  const auto start = std::chrono::steady_clock::now();
  const std::optional<KvImport> got = d->importKvPrefix(-x.id, x.input.promptTokenIds, x.numBlocks);
  if (!got && idle) {  // D's whole pool is smaller than the prompt: it can never decode it
    RequestTimeline f = x.prefill;
    f.id = x.id;
    f.finishReason = FinishReason::Error;
    f.error = "P/D: the decode instance's KV pool (" + std::to_string(d->numKvBlocks()) +
              " blocks) cannot hold the prompt's " + std::to_string(x.numBlocks) + " blocks";
    failed.push_back(std::move(f));
    transfers.pop_front();
    return true;
  }
  if (!got) return false;
  const size_t perBlock = d->executor().kvBytesPerBlock(d->kvBlockSize());
  int64_t bytes = 0;
  for (size_t i = 0; i < got->blockIds.size(); ++i) {
    if (!got->isNew[i]) continue;  // D had this block cached: nothing to copy
    if (d->executor().holdsKvData()) d->executor().writeKvBlock(got->blockIds[i], x.data.data() + i * perBlock);
    bytes += int64_t(perBlock);
  }
  RequestInput input = x.input;
  if (sim) input.arrivalTime = x.prefill.arrivalTime;  // one time base: both clocks start at 0
  const RequestId did = d->addRequest(std::move(input));
  decodeIds[did] = x.id;
  Outstanding& o = requests[x.id];
  o.decodeId = did;
  x.data = {};
  x.prefill.kvTransferBytes = bytes;
  x.prefill.kvTransferTime = x.sendSeconds + (sim ? 0.0 : secondsSince(start));
  held.emplace(x.id, std::move(x));
  transfers.pop_front();
  return true;
}

// Received blocks are let go once D has admitted their request: it holds them itself.
void PdEngine::Impl::releaseAdmitted() {
  for (const auto& [id, transfer] : held) {
    const RequestTimeline* t = d->timeline(requests[id].decodeId);
    if (t && (t->firstScheduledTime || t->finishReason != FinishReason::None)) d->releaseKvHold(-id);
  }
}

void PdEngine::Impl::finishFailed(StepOutput& out) {
  for (RequestTimeline& f : failed) {
    Outstanding& o = requests[f.id];
    o.merged = std::move(f);
    o.finished = true;
    --numUnfinished;
    out.newlyFinished.push_back(o.merged.id);
    TokenDelta delta;
    delta.id = o.merged.id;
    delta.finished = true;
    delta.finishReason = o.merged.finishReason;
    out.deltas.push_back(std::move(delta));
  }
  failed.clear();
}

// D's step in our ids; a finished request's record joins P's queue and prefill, the
// transfer and D's decode.
void PdEngine::Impl::report(const StepOutput& dout, StepOutput& out) {
  out.record = dout.record;
  out.error = dout.error;
  for (TokenDelta delta : dout.deltas) {
    delta.id = decodeIds.at(delta.id);
    out.deltas.push_back(std::move(delta));
  }
  for (RequestId did : dout.newlyFinished) {
    const RequestId id = decodeIds.at(did);
    decodeIds.erase(did);
    auto h = held.find(id);
    Outstanding& o = requests[id];
    o.merged = *d->timeline(did);
    o.merged.id = id;
    if (h != held.end()) {
      const RequestTimeline& pt = h->second.prefill;
      if (pt.firstScheduledTime) o.merged.firstScheduledTime = *pt.firstScheduledTime + prefillToDecodeClock;
      o.merged.numCachedPromptTokens = pt.numCachedPromptTokens;
      o.merged.prefixMiss = pt.prefixMiss;
      o.merged.numPreemptions += pt.numPreemptions;
      o.merged.kvTransferBytes = pt.kvTransferBytes;
      o.merged.kvTransferTime = pt.kvTransferTime;
      d->releaseKvHold(-id);  // no-op once released at admission
      held.erase(h);
    }
    o.finished = true;
    --numUnfinished;
    d->releaseRequest(did);
    out.newlyFinished.push_back(id);
  }
}

StepOutput PdEngine::step() {
  Impl& m = *impl_;
  StepOutput out;
  out.record.step = -1;
  if (m.sim) {
    // The instance whose next event is earlier goes first: P's next step, or D's next
    // step, or (D idle) the next transfer landing on D.
    const bool pBusy = m.p->hasUnfinishedRequests();
    const bool dBusy = m.d->hasUnfinishedRequests();
    double dNext = dBusy ? m.d->now() : 1e300;
    if (!dBusy && !m.transfers.empty()) dNext = std::max(m.d->now(), m.transfers.front().readyTime);
    if (pBusy && m.p->now() <= dNext) {
      m.stepPrefill();
    } else if (dNext < 1e300) {
      if (m.d->now() < dNext) m.d->advanceClock(dNext - m.d->now());
      while (m.admitFront()) {
      }
      if (m.d->hasUnfinishedRequests()) m.report(m.d->step(), out);
      m.releaseAdmitted();
    }
    // An idle instance's clock follows the busy one's, so that now() (the earlier of the
    // two) lets the runner add each request when it is due, not when the idle clock moves.
    if (!m.p->hasUnfinishedRequests() && m.p->now() < m.d->now()) m.p->advanceClock(m.d->now() - m.p->now());
    if (!m.d->hasUnfinishedRequests()) {
      double to = m.p->now();
      if (!m.transfers.empty()) to = std::min(to, m.transfers.front().readyTime);
      if (m.d->now() < to) m.d->advanceClock(to - m.d->now());
    }
    m.finishFailed(out);
    return out;
  }
  {
    std::unique_lock<std::mutex> lock(m.mutex);
    while (m.admitFront()) {
    }
    if (!m.d->hasUnfinishedRequests() && m.failed.empty()) {
      // Nothing to decode: wait briefly for P to hand something over.
      m.wake.wait_for(lock, std::chrono::milliseconds(2));
      while (m.admitFront()) {
      }
    }
    m.finishFailed(out);
  }
  if (m.d->hasUnfinishedRequests()) m.report(m.d->step(), out);
  m.releaseAdmitted();
  return out;
}

}  // namespace lwb
