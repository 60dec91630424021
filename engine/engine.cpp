#include "engine/engine.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/engine_impl.h"
#include "engine/exec/sim/sim_executor.h"
#include "engine/forward_batch_builder.h"
#include "engine/kv/kv_cache_manager.h"
#include "engine/model/model.h"
#include "engine/sched/stop_check.h"

namespace lwb {

namespace {

TokenDelta& deltaFor(StepOutput& out, RequestId id) {
  for (TokenDelta& d : out.deltas)
    if (d.id == id) return d;
  out.deltas.emplace_back().id = id;
  return out.deltas.back();
}

}  // namespace

// KV blocks: num_gpu_blocks_override, else kv_cache_memory_bytes, else enough for
// max_num_seqs × max_model_len capped by the executor's default budget.
void Engine::Impl::buildKv() {
  inForce.knobs = effective();
  const int bs = config.blockSize;
  executor->setBatchLimits(batchLimits());  // before the KV budget
  const size_t perBlock = executor->kvBytesPerBlock(bs);
  int64_t numBlocks = config.numGpuBlocksOverride;
  std::string source(knob::kNumGpuBlocksOverride);
  if (numBlocks == 0) {
    size_t budget = size_t(config.kvCacheMemoryBytes);
    source = std::string(knob::kKvCacheMemoryBytes) + " " + std::to_string(budget);
    if (budget == 0) {
      size_t wanted = perBlock * size_t(inForce.knobs.maxNumSeqs) * size_t((inForce.maxModelLen + bs - 1) / bs);
      budget = std::min(wanted, executor->defaultKvBudgetBytes());
      source = "the default KV budget of " + std::to_string(budget) + " bytes";
    }
    numBlocks = int64_t(budget / std::max<size_t>(perBlock, 1));
  }
  check(numBlocks >= 1 && numBlocks <= (int64_t(1) << 24),
        "KV cache: " + source + " gives " + std::to_string(numBlocks) + " blocks of " + std::to_string(perBlock) +
            " bytes (" + std::string(knob::kBlockSize) + " " + std::to_string(bs) + "); expected at least 1");
  executor->allocateKvCache(int(numBlocks), bs);
  auto kv = std::make_unique<KvCacheManager>(int(numBlocks), bs);
  kv->setEventLog(&kvEvents);
  kv->setMissAccounting(prefixMissAccounting);
  if (scheduler) kvEvents.add(KvAllBlocksCleared{});  // the old pool's blocks are gone
  scheduler = std::make_unique<Scheduler>(inForce, std::move(kv));
  buildProposer();
}

Engine::Engine(std::shared_ptr<const Model> model, const EngineConfig& config) : impl_(std::make_unique<Impl>()) {
  check(model != nullptr, "Engine: no model");
  config.validate();  // before an executor is built from it
  Impl& d = *impl_;
  d.model = std::move(model);
  d.config = config;
  d.createExecutorFor(config);
  d.inForce.maxModelLen = config.validateFor(d.modelMaxLen(), d.device);  // the budget defaults follow the device
  d.modelStopIds = d.model->stopTokenIds();
  d.buildKv();
  d.pending.record.step = -1;
}

Engine::~Engine() = default;

RequestId Engine::addRequest(RequestInput input) { return addRequestWithId(impl_->nextId, std::move(input)); }

RequestId Engine::addRequestWithId(RequestId id, RequestInput input) {
  Impl& d = *impl_;
  check(id > 0 && !d.requests.count(id), "request id " + std::to_string(id) + ": not positive or already used");
  validateRequest(input.promptTokenIds, input.sampling, d.model->config.vocabSize, d.inForce.maxModelLen);
  d.nextId = std::max(d.nextId, id + 1);

  auto er = std::make_unique<EngineRequest>();
  Request& r = er->req;
  r.id = id;
  r.numPromptTokens = int(input.promptTokenIds.size());
  r.tokenIds = std::move(input.promptTokenIds);
  r.sampling = input.sampling;
  r.priority = input.priority;
  r.timeline.id = id;
  r.timeline.priority = input.priority;
  r.timeline.numPromptTokens = r.numPromptTokens;
  r.timeline.arrivalTime = input.arrivalTime ? *input.arrivalTime : input.arrival ? d.timeOf(*input.arrival) : d.now();
  r.timeline.tag = std::move(input.tag);
  r.timeline.kvTransferBytes = input.kvTransferBytes;
  r.timeline.kvTransferTime = input.kvTransferTime;
  er->sampler = std::make_unique<RequestSampler>(r.sampling, d.seedBase ^ (uint64_t(id) * 0x9E3779B97F4A7C15ull));
  const size_t tail = std::min<size_t>(r.tokenIds.size(), 8);
  // A simulated run's tokens are stand-ins: no text (and no work spent detokenizing them).
  er->text = std::make_unique<OutputText>(d.virtualClock ? nullptr : d.model->tokenizer.get(),
                                          std::vector<int>(r.tokenIds.end() - long(tail), r.tokenIds.end()),
                                          r.sampling.stop);
  EngineRequest& ref = *er;
  d.requests.emplace(id, std::move(er));
  std::string reason = d.scheduler->addRequest(&ref.req);
  if (!reason.empty()) d.finish(ref, FinishReason::Rejected, d.pending, reason);
  return id;
}

void Engine::Impl::finish(EngineRequest& er, FinishReason reason, StepOutput& out, const std::string& error) {
  Request& r = er.req;
  scheduler->finishRequest(&r, reason == FinishReason::Rejected ? RequestState::Rejected : RequestState::Finished);
  if (proposer) proposer->release(r.id);
  r.timeline.finishReason = reason;
  r.timeline.finishTime = now();
  r.timeline.error = error;
  ++totals.requestSuccess[size_t(reason)];
  TokenDelta& delta = deltaFor(out, r.id);
  delta.newText += er.text->take(true);
  delta.finished = true;
  delta.finishReason = reason;
  out.newlyFinished.push_back(r.id);
}

void Engine::abortRequest(RequestId id) {
  auto it = impl_->requests.find(id);
  if (it == impl_->requests.end() || it->second->req.isFinished()) return;
  impl_->finish(*it->second, FinishReason::Abort, impl_->pending);
}

void Engine::Impl::abortAll(StepOutput& out) {
  for (auto& [id, er] : requests)
    if (!er->req.isFinished()) finish(*er, FinishReason::Abort, out);
}

bool Engine::hasUnfinishedRequests() const {
  return impl_->scheduler->hasRequests() || !impl_->pending.deltas.empty();
}

StepOutput Engine::flushFinished() {
  StepOutput out = std::move(impl_->pending);
  impl_->pending = StepOutput{};
  impl_->pending.record.step = -1;
  out.record.step = -1;
  return out;
}

void Engine::Impl::applyPendingConfig() {
  if (!configPending) return;
  configPending = false;
  inForce = {effective(), pendingMaxModelLen};  // the scheduler reads it from this step on
  // Bigger batches may need activation memory the KV pool took: then the pool is rebuilt
  // (what ran is aborted, as for a structural change).
  if (executor->setBatchLimits(batchLimits())) {
    abortAll(pending);
    buildKv();
    return;
  }
  if (!(config.speculative == proposerConfig)) buildProposer();
}

StepRecord Engine::Impl::makeRecord(const SchedulerOutput& plan, double t0, double t1) const {
  StepRecord rec;
  rec.step = numSteps;
  rec.startTime = t0;
  rec.duration = t1 - t0;
  rec.numPrefillTokens = plan.numPrefillTokens;
  rec.numDecodeTokens = plan.numDecodeTokens;
  rec.numScheduledSeqs = int(plan.seqs.size());
  rec.numRunning = scheduler->numRunning();
  rec.numWaiting = scheduler->numWaiting();
  KvUsage u = scheduler->kv().usage();
  rec.numBlocksUsed = u.numUsed;
  rec.numBlocksCachedFree = u.numCachedFree;
  rec.numBlocksFree = u.numFree;
  rec.prefixQueryRequests = plan.prefixQueryRequests;
  rec.prefixQueryTokens = plan.prefixQueryTokens;
  rec.prefixHitTokens = plan.prefixHitTokens;
  rec.prefixMissTokens = plan.prefixMissTokens;
  rec.numPreemptions = int(plan.preempted.size());
  rec.tokenBudget = plan.tokenBudget;
  rec.numSpecTokens = plan.numSpecTokens;
  for (const ScheduledSeq& s : plan.seqs) rec.numSpecDrafts += s.numSpecTokens() > 0 ? 1 : 0;
  return rec;
}

void Engine::Impl::failStep(const SchedulerOutput& plan, const std::string& what, StepOutput& out) {
  out.error = what;
  for (const ScheduledSeq& s : plan.seqs) finish(*requests.at(s.request->id), FinishReason::Error, out, what);
}

// Samples the next token from `logits` (the step's row, rewritten in place), or with
// `draftToken` >= 0 verifies that draft (*accepted: whether it was). Touches the request's
// own state only (its sampler), so that the rows of a step can be sampled concurrently.
SampleResult Engine::Impl::sampleToken(EngineRequest& er, float* logits, int draftToken,
                                       const std::vector<double>* draftProbs, bool* accepted) const {
  Request& r = er.req;
  const int vocab = model->config.vocabSize;
  maskStopTokens(r, modelStopIds, logits, vocab);
  return draftToken < 0 ? er.sampler->sample(logits, vocab, r.tokenIds)
                        : er.sampler->verify(logits, vocab, r.tokenIds, draftToken, draftProbs, accepted);
}

// The request's own part of taking a sampled token: appended, the stop checks, the text it
// adds (concurrently for the rows of a step, as sampleToken).
AppendResult Engine::Impl::appendToken(EngineRequest& er, int tokenId) const {
  Request& r = er.req;
  r.tokenIds.push_back(tokenId);
  AppendResult appended;
  appended.reason = checkStop(r, modelStopIds, inForce.maxModelLen, *er.text);
  appended.text = er.text->take(false);
  return appended;
}

// The engine's part of an appended token, in the plan's order: the timeline and totals
// (vLLM: TTFT and the prompt tokens at the first token), the step's delta (the token, its
// logprobs, the text `append` released) and the finish `append` found. `append` is null
// when the stop checks threw: the token counts, its text and finish are unknown.
void Engine::Impl::publishDelta(EngineRequest& er, const SampleResult& s, bool accepted, const AppendResult* append,
                                double t, StepOutput& out) {
  Request& r = er.req;
  r.timeline.numOutputTokens = r.numOutputTokens();
  r.timeline.tokenTimes.push_back(t);
  if (!r.timeline.firstTokenTime) {
    r.timeline.firstTokenTime = t;
    totals.promptTokens += r.numPromptTokens;
  }
  ++totals.generatedTokens;
  TokenDelta& delta = deltaFor(out, r.id);
  delta.newTokenIds.push_back(s.tokenId);
  delta.fromDraft.push_back(accepted);
  // The top-K of the raw distribution, best first, as `generate --json` and vLLM report them.
  if (r.sampling.logprobs > 0) delta.newLogprobs.push_back(s.topLogprobs);
  if (!append) return;
  delta.newText += append->text;
  delta.textEnds.push_back(delta.newText.size());
  if (append->reason != FinishReason::None) finish(er, append->reason, out);
}

void Engine::Impl::addPlanTotals(const SchedulerOutput& plan) {
  totals.prefixQueryRequests += plan.prefixQueryRequests;
  totals.prefixQueryTokens += plan.prefixQueryTokens;
  totals.prefixHitTokens += plan.prefixHitTokens;
  totals.preemptedPrefixQueryTokens += plan.preemptedPrefixQueryTokens;
  totals.preemptedPrefixHitTokens += plan.preemptedPrefixHitTokens;
  totals.preemptions += int64_t(plan.preempted.size());
  for (size_t i = 0; i < plan.prefixMissTokens.size(); ++i) totals.prefixMissTokens[i] += plan.prefixMissTokens[i];
  recentPrefix.observe(plan.prefixQueryRequests, plan.prefixQueryTokens, plan.prefixHitTokens);
  totals.recentPrefixHitRate = recentPrefix.hitRate();
}

// Drafts for the running requests, then this step's plan; requests the knobs can never
// run are finished as rejected.
SchedulerOutput Engine::Impl::schedule(double t0, StepOutput& out) {
  try {
    propose();
  } catch (const std::exception& e) {  // a draft model's forward pass failed: contained like the target's
    out.error = std::string("speculative proposer failed: ") + e.what();
    const std::vector<Request*> running = scheduler->running();
    for (Request* r : running) finish(*requests.at(r->id), FinishReason::Error, out, out.error);
  }
  SchedulerOutput plan = scheduler->schedule(t0);
  for (const RejectedRequest& rej : plan.rejected)
    finish(*requests.at(rej.request->id), FinishReason::Rejected, out, rej.reason);
  addPlanTotals(plan);
  describeDivergences(plan);
  return plan;
}

// The few token ids on each side of a divergence, as text, for the views and the API.
// Only first admissions carry ids without text; a simulated run has no tokenizer.
void Engine::Impl::describeDivergences(const SchedulerOutput& plan) const {
  if (virtualClock || !model->tokenizer) return;
  for (const ScheduledSeq& s : plan.seqs) {
    PrefixMiss& m = s.request->timeline.prefixMiss;
    if (m.divergedAtToken < 0 || !m.divergedOurText.empty() || !m.divergedTheirText.empty()) continue;
    try {
      m.divergedOurText = model->tokenizer->decode(m.divergedOurIds);
      m.divergedTheirText = model->tokenizer->decode(m.divergedTheirIds);
    } catch (const std::exception&) {  // ids the tokenizer cannot spell (a test model's): the ids stay
      m.divergedOurText.clear();
      m.divergedTheirText.clear();
    }
  }
}

// One forward pass over the plan. On failure the step's requests finish with "error"
// and false is returned; nothing is committed.
bool Engine::Impl::execute(const SchedulerOutput& plan, ForwardResult& result, StepOutput& out) {
  try {
    const ForwardBatch batch = buildForwardBatch(plan, scheduler->kv());
    if (beforeForward) beforeForward(batch);
    if (stepShapeObserver) stepShapeObserver(stepShapeOf(batch));
    executor->forward(batch, result);
    if (virtualClock) virtualNow += std::max(0.0, result.predictedSeconds);
  } catch (const std::exception& e) {
    scheduler->abortStep();  // no hash may point at blocks this pass did not write
    failStep(plan, std::string("forward pass failed: ") + e.what(), out);
    return false;
  }
  scheduler->commitStep(plan);
  return true;
}

// The rows of the sequences that reached their end this step without drafts: sampled and
// appended (sampleToken, appendToken: in place in `result`) concurrently on the executor's
// host threads. Each request's own sampler, RNG and text, so the same tokens and text
// whatever the thread. On one thread the other threads would idle through it
// (`bench_cpu --only engine` measures what it adds to a step).
std::vector<SampledRow> Engine::Impl::sampleRows(const SchedulerOutput& plan, ForwardResult& result) {
  std::vector<SampledRow> rows;  // in the plan's order
  int row = 0;
  for (const ScheduledSeq& s : plan.seqs) {
    if (!s.needLogits) continue;
    if (s.numSpecTokens() == 0) rows.push_back({requests.at(s.request->id).get(), row, {}, false, {}, {}});
    row += 1 + s.numSpecTokens();
  }
  executor->runHostTasks(int(rows.size()), [&](int i) {
    SampledRow& d = rows[size_t(i)];
    try {
      if (result.logits.empty()) d.sample.tokenId = result.tokenIds.at(size_t(d.row));  // chosen by a simulated executor
      else d.sample = sampleToken(*d.er, result.logits.data() + size_t(d.row) * size_t(result.vocabSize));
      d.appended = true;
      d.append = appendToken(*d.er, d.sample.tokenId);
    } catch (const std::exception& e) {
      d.error = e.what();
    }
  });
  return rows;
}

// Sample, append, check stop, for every sequence that reached its end this step; a
// sequence with drafts has k + 1 rows and verifies them. The rows without drafts come
// from sampleRows; then every sequence is published, or verified, in the plan's order.
// Returns the drafts accepted.
int Engine::Impl::postprocess(const SchedulerOutput& plan, ForwardResult& result, StepOutput& out) {
  const double tTokens = now();
  const std::vector<SampledRow> sampled = sampleRows(plan, result);
  size_t next = 0;
  int accepted = 0, row = 0;
  for (const ScheduledSeq& s : plan.seqs) {
    if (!s.needLogits) continue;
    EngineRequest& er = *requests.at(s.request->id);
    try {
      if (s.numSpecTokens() > 0) {
        accepted += verifyDrafts(er, s, result, row, tTokens, out);
      } else {
        const SampledRow& d = sampled[next++];
        // Appended, then the stop checks threw: the token counts, as when one thread did it all.
        if (d.appended) publishDelta(er, d.sample, false, d.error.empty() ? &d.append : nullptr, tTokens, out);
        if (!d.error.empty()) throw Error(d.error);
      }
    } catch (const std::exception& e) {
      if (!er.req.isFinished()) finish(er, FinishReason::Error, out, std::string("sampling failed: ") + e.what());
    }
    row += 1 + s.numSpecTokens();
  }
  return accepted;
}

StepOutput Engine::step() {
  Impl& d = *impl_;
  StepOutput out = flushFinished();
  d.applyPendingConfig();
  const double t0 = d.now();
  const SchedulerOutput plan = d.schedule(t0, out);
  if (plan.empty()) return out;
  ForwardResult& result = d.result;
  const int accepted = d.execute(plan, result, out) ? d.postprocess(plan, result, out) : 0;
  out.record = d.makeRecord(plan, t0, d.now());
  out.record.numAcceptedSpecTokens = accepted;
  d.recordStep(out.record);
  return out;
}

// Live knobs wait for the next step; structural ones rebuild now. A change that fails
// leaves the previous knobs in force (and serving) and throws the reason.
void Engine::setConfig(const EngineConfig& config) {
  Impl& d = *impl_;
  const int maxLen = config.validateFor(d.modelMaxLen(), d.device);
  const EngineConfig old = d.config;
  if (!old.structuralDiffers(config)) {
    d.checkSimulable(config);
    d.config = config;
    d.pendingMaxModelLen = maxLen;
    d.configPending = true;
    return;
  }
  d.abortAll(d.pending);
  if (d.configPending) d.inForce.maxModelLen = d.pendingMaxModelLen;  // old's live knobs: in force from the rebuild on
  const int oldMaxLen = d.inForce.maxModelLen;
  const bool newExecutor = old.executorDiffers(config);
  d.config = config;
  d.inForce.maxModelLen = maxLen;
  d.configPending = false;
  try {
    if (newExecutor) {
      d.createExecutorFor(config);
      d.inForce.maxModelLen = config.validateFor(d.modelMaxLen(), d.device);  // the budget defaults follow the device
    }
    d.buildKv();
  } catch (...) {
    d.config = old;  // keep serving with the old knobs
    d.inForce.maxModelLen = oldMaxLen;
    if (newExecutor) d.createExecutorFor(old);
    d.buildKv();
    throw;
  }
}

void Engine::setRecordKvEvents(bool on) {
  Impl& d = *impl_;
  if (on == d.kvEvents.enabled()) return;
  d.kvEvents.setEnabled(on);
  if (on) {
    d.kvEvents.add(KvAllBlocksCleared{});  // a reader starts from this state, whatever it held
    d.scheduler->kv().pool().announceCachedBlocks();
  } else {
    d.kvEvents.take();
  }
}

void Engine::setStepShapeObserver(std::function<void(const sim::StepShape&)> observer) {
  impl_->stepShapeObserver = std::move(observer);
}

std::vector<KvCacheEvent> Engine::takeKvEvents() { return impl_->kvEvents.take(); }

const EngineConfig& Engine::config() const { return impl_->config; }
EngineConfig Engine::effectiveConfig() const { return impl_->effective(); }
const Model& Engine::model() const { return *impl_->model; }
DeviceInfo Engine::deviceInfo() const { return impl_->executor->deviceInfo(); }
double Engine::now() const { return impl_->now(); }
bool Engine::simulated() const { return impl_->virtualClock; }
void Engine::advanceClock(double seconds) {
  check(impl_->virtualClock, "advanceClock: the engine runs on the wall clock (only a simulated engine's is virtual)");
  impl_->virtualNow += std::max(0.0, seconds);
}
double Engine::timeOf(std::chrono::steady_clock::time_point t) const { return impl_->timeOf(t); }
int Engine::numRunning() const { return impl_->scheduler->numRunning(); }
int Engine::numWaiting() const { return impl_->scheduler->numWaiting(); }
int Engine::maxModelLen() const { return impl_->configPending ? impl_->pendingMaxModelLen : impl_->inForce.maxModelLen; }
EngineTotals Engine::totals() const { return impl_->totals; }
const std::vector<StepRecord>& Engine::steps() const { return impl_->steps; }
int64_t Engine::numSteps() const { return impl_->numSteps; }
void Engine::setKeepStepHistory(bool keep) {
  impl_->keepStepHistory = keep;
  if (!keep) std::vector<StepRecord>().swap(impl_->steps);
}

void Engine::releaseRequest(RequestId id) {
  auto it = impl_->requests.find(id);
  if (it == impl_->requests.end()) return;
  check(it->second->req.isFinished(), "releaseRequest: request " + std::to_string(id) + " has not finished");
  impl_->requests.erase(it);
}
std::vector<int> Engine::cachedPrefixBlockIds(const std::vector<int>& tokens) const {
  return impl_->scheduler->kv().findCachedPrefix(tokens).blockIds;
}

std::optional<KvImport> Engine::importKvPrefix(int64_t holdId, const std::vector<int>& tokens, int numBlocks) {
  return impl_->scheduler->kvForTransfer().importPrefix(holdId, tokens, numBlocks);
}

void Engine::releaseKvHold(int64_t holdId) { impl_->scheduler->kvForTransfer().free(holdId); }
int Engine::numFreeKvBlocks() const { return impl_->scheduler->kv().pool().numFreeBlocks(); }
int Engine::kvBlockSize() const { return impl_->scheduler->kv().blockSize(); }
Executor& Engine::executor() { return *impl_->executor; }

int Engine::numKvBlocks() const { return impl_->scheduler->kv().numBlocks(); }

const RequestTimeline* Engine::timeline(RequestId id) const {
  auto it = impl_->requests.find(id);
  return it == impl_->requests.end() ? nullptr : &it->second->req.timeline;
}

std::vector<RequestTimeline> Engine::allTimelines() const {
  std::vector<RequestTimeline> out;
  for (const auto& [id, er] : impl_->requests) out.push_back(er->req.timeline);
  return out;
}

std::vector<RequestTimeline> Engine::liveTimelines() const {
  std::vector<RequestTimeline> out;
  for (const auto& [id, er] : impl_->requests)
    if (!er->req.isFinished()) out.push_back(er->req.timeline);
  return out;
}

const std::vector<int>* Engine::outputTokenIds(RequestId id) const {
  auto it = impl_->requests.find(id);
  return it == impl_->requests.end() ? nullptr : &it->second->req.tokenIds;
}

std::vector<KvBlockInfo> Engine::kvBlocks() const { return listKvBlocks(impl_->scheduler->kv()); }

}  // namespace lwb
