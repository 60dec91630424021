#include "engine/pd_engine.h"

#include <algorithm>
#include <chrono>

#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/exec/executor.h"
#include "engine/kv/kv_cache_manager.h"
#include "engine/model/model.h"
#include "engine/sched/request.h"
#include "engine/pd_engine_impl.h"

namespace lwb {

double kvLinkSeconds(const KvLink& link, int64_t bytes) {
  return link.latencyUs * 1e-6 + double(bytes) / (link.bandwidthGBps * 1e9);
}

PdConfig makePdConfig(const EngineConfig& base, int prefill, int decode) {
  PdConfig pd;
  pd.prefill = pd.decode = base;
  for (EngineConfig* c : {&pd.prefill, &pd.decode})
    if (c->executor.backend == "auto") c->executor.backend = "cpu";  // P/D copies blocks on cpu or sim only
  if (pd.prefill.executor.backend == "sim") {
    pd.numPrefill = prefill;
    pd.numDecode = decode;
  } else {
    pd.prefill.executor.numThreads = prefill;
    pd.decode.executor.numThreads = decode;
  }
  pd.transfer = base.kvTransfer;
  if (!pd.transfer.enabled()) pd.transfer.kvConnector = "PdInProcessConnector";
  return pd;
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void checkInstanceConfig(const EngineConfig& c) {
  check(c.enablePrefixCaching, std::string(knob::kEnablePrefixCaching) +
                                   " off: P/D disaggregation finds a request's blocks through the prefix "
                                   "cache on both instances; turn it on");
  check(c.executor.backend == "cpu" || c.executor.backend == "sim",
        std::string(knob::kBackend) + " " + c.executor.backend + ": P/D disaggregation runs on cpu or sim");
}

}  // namespace

PdEngine::PdEngine(std::shared_ptr<const Model> model, const PdConfig& config) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.model = model;
  m.config = config;
  checkInstanceConfig(config.prefill);
  checkInstanceConfig(config.decode);
  check(config.prefill.blockSize == config.decode.blockSize && config.prefill.executor.backend ==
                                                                   config.decode.executor.backend,
        "P/D disaggregation: the prefill and decode instances need the same " + std::string(knob::kBackend) +
            " and " + std::string(knob::kBlockSize));
  const bool sim = config.prefill.executor.backend == "sim";
  check(config.numPrefill >= 1 && config.numDecode >= 1 && config.numPrefill <= 64 && config.numDecode <= 64,
        "P/D disaggregation: " + std::to_string(config.numPrefill) + ":" + std::to_string(config.numDecode) +
            " instances; expected 1..64 of each");
  check(sim || (config.numPrefill == 1 && config.numDecode == 1),
        "P/D disaggregation: the cpu backend runs one prefill and one decode instance (P:D are their threads), "
        "not " + std::to_string(config.numPrefill) + ":" + std::to_string(config.numDecode));
  kvLinkPreset(config.transfer.link);  // a bad link: the error now
  for (int i = 0; i < config.numPrefill; ++i) m.ps.push_back(std::make_unique<Engine>(model, config.prefill));
  for (int j = 0; j < config.numDecode; ++j) m.ds.push_back(std::make_unique<Engine>(model, config.decode));
  m.prefillIds.resize(m.ps.size());
  m.views.resize(m.ps.size());
  m.outstandingPrefillTokens.assign(m.ps.size(), 0);
  m.linkFreeAt.assign(m.ps.size(), 0.0);
  m.decodeIds.resize(m.ds.size());
  m.sim = m.ds[0]->simulated();
  check(m.ps[0]->executor().kvBytesPerBlock(config.prefill.blockSize) ==
            m.ds[0]->executor().kvBytesPerBlock(config.decode.blockSize),
        "P/D disaggregation: the instances' KV blocks differ in size (" + std::string(knob::kKvCacheDtype) + ")");
  if (!m.sim) {
    const auto t = std::chrono::steady_clock::now();
    m.prefillToDecodeClock = m.ds[0]->timeOf(t) - m.ps[0]->timeOf(t);
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

Engine& PdEngine::prefillEngine(int i) { return *impl_->ps.at(size_t(i)); }
Engine& PdEngine::decodeEngine(int i) { return *impl_->ds.at(size_t(i)); }
int PdEngine::numPrefillInstances() const { return int(impl_->ps.size()); }
int PdEngine::numDecodeInstances() const { return int(impl_->ds.size()); }
bool PdEngine::simulated() const { return impl_->sim; }
bool PdEngine::hasUnfinishedRequests() const { return impl_->numUnfinished > 0; }

int PdEngine::numWaitingTransfers() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return int(impl_->transfers.size());
}

int PdEngine::numKvHolds() const { return int(impl_->held.size()); }

double PdEngine::now() const { return impl_->sim ? impl_->simNow() : impl_->ds[0]->now(); }

void PdEngine::advanceClock(double seconds) {
  check(impl_->sim, "PdEngine::advanceClock: the CPU backend's clock is the wall clock");
  const double to = now() + seconds;
  for (auto* group : {&impl_->ps, &impl_->ds})
    for (auto& e : *group)
      if (e->now() < to) e->advanceClock(to - e->now());
  impl_->lastNow = std::max(impl_->lastNow, to);
}

const RequestTimeline* PdEngine::timeline(RequestId id) const {
  auto it = impl_->requests.find(id);
  return it != impl_->requests.end() && it->second.finished ? &it->second.merged : nullptr;
}

RequestId PdEngine::addRequest(RequestInput input) { return addRequestWithId(impl_->nextId, std::move(input)); }

RequestId PdEngine::addRequestWithId(RequestId id, RequestInput input) {
  Impl& m = *impl_;
  check(id > 0 && !m.requests.count(id), "PdEngine: request id " + std::to_string(id) + " is not new");
  validateRequest(input.promptTokenIds, input.sampling, m.ds[0]->model().config.vocabSize, m.ds[0]->maxModelLen());
  if (!input.arrival) input.arrival = std::chrono::steady_clock::now();
  m.nextId = std::max(m.nextId, id + 1);
  m.requests[id].tokenIds = input.promptTokenIds;
  ++m.numUnfinished;
  if (m.sim) return m.addSimRequest(id, std::move(input));
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
    m.ds[size_t(it->second.decodeIndex)]->abortRequest(it->second.decodeId);
    return;
  }
  m.shared([&] {
    auto x = std::find_if(m.transfers.begin(), m.transfers.end(), [&](const PdTransfer& t) { return t.id == id; });
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

StepOutput PdEngine::step() { return impl_->sim ? impl_->stepSim() : impl_->stepCpu(); }

// The prompt's blocks that D will find as a prefix hit: full blocks, the last token left
// out (D computes it, and P sampled from it).
PdTransfer PdEngine::Impl::makeTransfer(RequestId id, int from, const RequestTimeline& t, RequestInput input) {
  PdTransfer x;
  x.id = id;
  x.fromPrefill = from;
  x.prefill = t;
  x.input = std::move(input);
  Engine& p = *ps[size_t(from)];
  const auto start = std::chrono::steady_clock::now();
  const std::vector<int> blocks = p.cachedPrefixBlockIds(x.input.promptTokenIds);
  x.numBlocks = int(blocks.size());
  const size_t perBlock = p.executor().kvBytesPerBlock(p.kvBlockSize());
  if (p.executor().holdsKvData()) {
    x.data.resize(perBlock * blocks.size());
    for (size_t i = 0; i < blocks.size(); ++i) p.executor().readKvBlock(blocks[i], x.data.data() + i * perBlock);
    x.sendSeconds = secondsSince(start);
  } else {
    // P's link is one serial queue: this transfer starts once the previous one has left.
    const double wire = kvLinkSeconds(kvLinkPreset(config.transfer.link), int64_t(perBlock * blocks.size()));
    const double begin = std::max(p.now(), linkFreeAt[size_t(from)]);
    x.readyTime = begin + wire;
    linkFreeAt[size_t(from)] = x.readyTime;
    x.sendSeconds = x.readyTime - p.now();
  }
  return x;
}

// CPU: in the order P finished them. Sim: in the order they land on D.
void PdEngine::Impl::queueTransfer(PdTransfer x) {
  if (!sim) return transfers.push_back(std::move(x));
  auto at = std::upper_bound(transfers.begin(), transfers.end(), x.readyTime,
                             [](double t, const PdTransfer& e) { return t < e.readyTime; });
  transfers.insert(at, std::move(x));
}

// One step of prefill instance i; its finished requests become transfers (or failures).
// Runs on P's thread (CPU) or the caller's (sim); the inputs of the requests it finishes
// come from `inbox`.
StepOutput PdEngine::Impl::stepPrefill(int i) {
  Engine& p = *ps[size_t(i)];
  applyPendingPrefillConfig();
  StepOutput out = p.step();
  out.record.instance = StepRecord::Instance::Prefill;
  out.record.instanceIndex = i;
  for (RequestId pid : out.newlyFinished) {
    const RequestTimeline t = *p.timeline(pid);
    const RequestId id = prefillIds[size_t(i)].at(pid);
    prefillIds[size_t(i)].erase(pid);
    p.releaseRequest(pid);
    RequestInput input;
    shared([&] {
      auto in = std::find_if(inbox.begin(), inbox.end(), [&](const auto& e) { return e.first == id; });
      input = std::move(in->second);
      inbox.erase(in);
    });
    if (sim) outstandingPrefillTokens[size_t(i)] -= int64_t(input.promptTokenIds.size());
    bool aborted = false;
    shared([&] { aborted = abortedOnPrefill.erase(id) > 0; });
    if (t.completed() && !aborted) {
      PdTransfer x = makeTransfer(id, i, t, std::move(input));  // before P's next step may evict the blocks
      shared([&] { queueTransfer(std::move(x)); });
    } else {
      RequestTimeline f = t;
      f.id = id;
      if (aborted) f.finishReason = FinishReason::Abort;
      shared([&] { failed.push_back(std::move(f)); });
    }
  }
  afterPrefillStep(i, out);
  wake.notify_all();
  return out;
}

int PdEngine::Impl::blocksNeeded(const Engine& d, const RequestInput& in) const {
  const int bs = d.kvBlockSize();
  const int tokens = int(in.promptTokenIds.size()) + in.sampling.maxTokens;
  return std::min((tokens + bs - 1) / bs, d.numKvBlocks());
}

// Free blocks of decode instance j that its requests will still take: a received one not
// yet admitted by D's scheduler its whole sequence less the blocks it holds already, an
// admitted one the blocks its sequence has yet to grow into. Two requests each holding
// its prompt and each waiting for the other's blocks would never be admitted; and a
// request admitted into blocks that a running one will grow into gets that one
// preempted, which then waits for blocks the newcomer holds, behind it in D's queue:
// a deadlock that depended on when P handed the requests over.
int PdEngine::Impl::blocksPromised(int j) const {
  const Engine& d = *ds[size_t(j)];
  const int bs = d.kvBlockSize();
  int n = 0;
  for (const auto& [id, x] : held) {
    auto o = requests.find(id);
    if (o == requests.end() || o->second.decodeIndex != j) continue;
    const int needed = blocksNeeded(d, x.input);
    if (!x.holdReleased) {
      n += std::max(0, needed - x.numBlocks);
      continue;
    }
    const RequestTimeline* t = d.timeline(o->second.decodeId);
    if (t == nullptr || t->finishReason != FinishReason::None) continue;
    n += std::max(0, needed - (t->numPromptTokens + t->numOutputTokens + bs - 1) / bs);
  }
  return n;
}

// The decode instance that can take `x` now, the one with the most free KV blocks: it
// has room for the whole sequence beside what it promised, or is idle (an idle instance
// tries its whole pool). -1 when none can. The most free blocks, not round-robin:
// instances fill unevenly when outputs differ in length, and the emptiest one preempts
// least.
int PdEngine::Impl::chooseDecode(const PdTransfer& x) const {
  int best = -1, bestFree = 0;
  for (size_t j = 0; j < ds.size(); ++j) {
    const Engine& d = *ds[j];
    const int free = d.numFreeKvBlocks() - blocksPromised(int(j));
    if (d.hasUnfinishedRequests() && free < blocksNeeded(d, x.input)) continue;
    if (best < 0 || free > bestFree) best = int(j), bestFree = free;
  }
  return best;
}

// Receives the oldest transfer when a decode instance can take it. Returns false when it
// has to wait. Called with `mutex` held on the CPU.
bool PdEngine::Impl::admitFront() {
  if (transfers.empty()) return false;
  const int j = chooseDecode(transfers.front());
  return j >= 0 && admit(j);
}

// The oldest transfer's blocks into decode instance j's pool under a hold, its request
// into j's queue. False when j has no room after all (it waits).
bool PdEngine::Impl::admit(int j) {
  PdTransfer& x = transfers.front();
  Engine& d = *ds[size_t(j)];
  const bool idle = !d.hasUnfinishedRequests();
  const auto start = std::chrono::steady_clock::now();
  const std::optional<KvImport> got = d.importKvPrefix(-x.id, x.input.promptTokenIds, x.numBlocks);
  if (!got && idle) {  // D's whole pool is smaller than the prompt: it can never decode it
    RequestTimeline f = x.prefill;
    f.id = x.id;
    f.finishReason = FinishReason::Error;
    f.error = "P/D: the decode instance's KV pool (" + std::to_string(d.numKvBlocks()) +
              " blocks) cannot hold the prompt's " + std::to_string(x.numBlocks) + " blocks";
    failed.push_back(std::move(f));
    transfers.pop_front();
    return true;
  }
  if (!got) return false;
  const size_t perBlock = d.executor().kvBytesPerBlock(d.kvBlockSize());
  int64_t bytes = 0;
  for (size_t i = 0; i < got->blockIds.size(); ++i) {
    if (!got->isNew[i]) continue;  // D had this block cached: nothing to copy
    if (d.executor().holdsKvData()) d.executor().writeKvBlock(got->blockIds[i], x.data.data() + i * perBlock);
    bytes += int64_t(perBlock);
  }
  RequestInput input = x.input;
  if (sim) input.arrivalTime = x.prefill.arrivalTime;  // one time base: every clock starts at 0
  const RequestId did = d.addRequest(std::move(input));
  decodeIds[size_t(j)][did] = x.id;
  PdOutstanding& o = requests[x.id];
  o.decodeId = did;
  o.decodeIndex = j;
  x.data = {};
  x.prefill.kvTransferBytes = bytes;
  x.prefill.kvTransferTime = x.sendSeconds + (sim ? 0.0 : secondsSince(start));
  held.emplace(x.id, std::move(x));
  transfers.pop_front();
  return true;
}

// Received blocks are let go once D has admitted their request: it holds them itself.
void PdEngine::Impl::releaseAdmitted() {
  for (auto& [id, transfer] : held) {
    if (transfer.holdReleased) continue;
    const PdOutstanding& o = requests[id];
    Engine& d = *ds[size_t(o.decodeIndex)];
    const RequestTimeline* t = d.timeline(o.decodeId);
    if (t && (t->firstScheduledTime || t->finishReason != FinishReason::None)) {
      d.releaseKvHold(-id);
      transfer.holdReleased = true;
    }
  }
}

void PdEngine::Impl::finishFailed(StepOutput& out) {
  for (RequestTimeline& f : failed) {
    PdOutstanding& o = requests[f.id];
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

// Decode instance j's step in our ids; a finished request's record joins P's queue and
// prefill, the transfer and D's decode.
void PdEngine::Impl::report(int j, const StepOutput& dout, StepOutput& out) {
  Engine& d = *ds[size_t(j)];
  std::map<RequestId, RequestId>& ids = decodeIds[size_t(j)];
  out.record = dout.record;
  out.record.instance = StepRecord::Instance::Decode;
  out.record.instanceIndex = j;
  out.error = dout.error;
  for (TokenDelta delta : dout.deltas) {
    delta.id = ids.at(delta.id);
    out.deltas.push_back(std::move(delta));
  }
  for (RequestId did : dout.newlyFinished) {
    const RequestId id = ids.at(did);
    ids.erase(did);
    auto h = held.find(id);
    PdOutstanding& o = requests[id];
    o.merged = *d.timeline(did);
    o.merged.id = id;
    if (h != held.end()) {
      const RequestTimeline& pt = h->second.prefill;
      if (pt.firstScheduledTime) o.merged.firstScheduledTime = *pt.firstScheduledTime + prefillToDecodeClock;
      o.merged.numCachedPromptTokens = pt.numCachedPromptTokens;
      o.merged.prefixMiss = pt.prefixMiss;
      o.merged.numPreemptions += pt.numPreemptions;
      o.merged.kvTransferBytes = pt.kvTransferBytes;
      o.merged.kvTransferTime = pt.kvTransferTime;
      if (pt.finishTime) o.merged.kvTransferStartTime = *pt.finishTime + prefillToDecodeClock;
      d.releaseKvHold(-id);  // no-op once released at admission
      held.erase(h);
    }
    if (const std::vector<int>* all = d.outputTokenIds(did)) o.tokenIds = *all;
    o.finished = true;
    --numUnfinished;
    d.releaseRequest(did);
    out.newlyFinished.push_back(id);
  }
}

}  // namespace lwb
