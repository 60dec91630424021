#include "engine/sched/scheduler.h"

#include <algorithm>
#include <tuple>

#include "engine/common/error.h"
#include "engine/config/knobs.h"

namespace lwb {

Scheduler::Scheduler(const ConfigInForce& config, std::unique_ptr<KvCacheManager> kv)
    : config_(config), kv_(std::move(kv)) {}

// Off: no lookups and no new hashes (blocks already cached stay until evicted).
const std::vector<int>* Scheduler::hashable(const Request& r) const {
  return knobs().enablePrefixCaching ? &r.tokenIds : nullptr;
}

// No budget reason: without chunked prefill the knobs guarantee max_num_batched_tokens
// >= max_model_len (EngineConfig::validateFor), so every prompt fits one step.
std::string Scheduler::neverSchedulableReason(const Request& r) const {
  const int maxModelLen = config_.maxModelLen;
  if (r.numTokens() >= maxModelLen)
    return "the request has " + std::to_string(r.numTokens()) + " tokens; " + std::string(knob::kMaxModelLen) + " is " +
           std::to_string(maxModelLen);
  // The worst case it may grow to must fit the whole pool, or it could preempt itself forever.
  int64_t maxTokens = std::min<int64_t>(int64_t(r.numPromptTokens) + r.sampling.maxTokens, maxModelLen);
  int needed = kv_->blocksFor(int(maxTokens));
  if (needed > kv_->numBlocks())
    return "the request may grow to " + std::to_string(maxTokens) + " tokens (prompt + max_tokens) = " +
           std::to_string(needed) + " KV blocks of " + std::to_string(kv_->blockSize()) + " tokens, but the pool has " +
           std::to_string(kv_->numBlocks()) + " blocks (" + std::string(knob::kKvCacheMemoryBytes) + " / " +
           std::string(knob::kNumGpuBlocksOverride) + ")";
  return {};
}

std::string Scheduler::addRequest(Request* r) {
  std::string reason = neverSchedulableReason(*r);
  if (!reason.empty()) return reason;
  r->arrivalSeq = nextArrivalSeq_++;
  r->state = RequestState::Waiting;
  waiting_.push_back(r);
  return {};
}

int Scheduler::capChunk(int numNewTokens, int budget) const {
  const int threshold = knobs().longPrefillTokenThreshold;
  if (threshold > 0 && numNewTokens > threshold) numNewTokens = threshold;
  return std::min(numNewTokens, budget);
}

SchedulerOutput Scheduler::schedule(double now) {
  SchedulerOutput out;
  out.tokenBudget = knobs().maxNumBatchedTokens;
  kv_->setNow(now);
  budgetLeft_ = knobs().maxNumBatchedTokens;
  scheduleRunning(out, now);
  // As vLLM: no admissions in a step that had to preempt.
  if (out.preempted.empty()) scheduleWaiting(out, now);
  for (const ScheduledSeq& s : out.seqs) {
    out.numScheduledTokens += s.numNewTokens;
    out.numPrefillTokens += s.numPrefillTokens();
    out.numSpecTokens += s.numSpecTokens();
  }
  out.numDecodeTokens = out.numScheduledTokens - out.numPrefillTokens - out.numSpecTokens;
  return out;
}

Request* Scheduler::pickVictim() const {
  if (knobs().schedulingPolicy == SchedulingPolicy::Fcfs) return running_.back();
  // Lowest priority = largest value, then the latest arrival.
  return *std::max_element(running_.begin(), running_.end(), [](const Request* a, const Request* b) {
    return std::tie(a->priority, a->arrivalSeq) < std::tie(b->priority, b->arrivalSeq);
  });
}

void Scheduler::preempt(Request* victim, SchedulerOutput& out, double now) {
  running_.erase(std::find(running_.begin(), running_.end(), victim));
  kv_->free(victim->id);
  victim->numComputedBeforePreemption = std::max(victim->numComputedBeforePreemption, victim->numComputedTokens);
  victim->numComputedTokens = 0;
  victim->specTokenIds.clear();
  victim->specDraftProbs.clear();
  victim->state = RequestState::Preempted;
  victim->timeline.numPreemptions++;
  victim->timeline.preemptionTimes.push_back(now);
  waiting_.push_front(victim);
  out.preempted.push_back(victim);
}

void Scheduler::scheduleRunning(SchedulerOutput& out, double now) {
  size_t index = 0;
  while (index < running_.size() && budgetLeft_ > 0 && int(out.seqs.size()) < knobs().maxNumSeqs) {
    Request* r = running_[index];
    // Drafts ride after the real tokens and are the first to go when the budget is short.
    const int numReal = r->numTokens() - r->numComputedTokens;
    int numNew = capChunk(numReal + int(r->specTokenIds.size()), budgetLeft_);
    if (numNew <= 0) {
      ++index;
      continue;
    }
    const int numSpec = std::max(0, numNew - numReal);
    bool scheduled = true;
    while (!kv_->allocateSlots(r->id, r->numComputedTokens + numNew - numSpec, nullptr, hashable(*r), 0, numSpec)) {
      Request* victim = pickVictim();
      auto it = std::find_if(out.seqs.begin(), out.seqs.end(),
                             [victim](const ScheduledSeq& s) { return s.request == victim; });
      if (it != out.seqs.end()) {  // already scheduled this step: give its tokens back
        budgetLeft_ += it->numNewTokens;
        out.seqs.erase(it);
        --index;
      }
      preempt(victim, out, now);
      if (victim == r) {
        scheduled = false;
        break;
      }
    }
    if (!scheduled) break;
    const bool needLogits = r->numComputedTokens + numNew - numSpec == r->numTokens();
    out.seqs.push_back({r, numNew, r->numComputedTokens, needLogits,
                        std::vector<int>(r->specTokenIds.begin(), r->specTokenIds.begin() + numSpec)});
    budgetLeft_ -= numNew;
    ++index;
  }
}

std::deque<Request*>::iterator Scheduler::nextWaiting() {
  if (knobs().schedulingPolicy == SchedulingPolicy::Fcfs) return waiting_.begin();
  return std::min_element(waiting_.begin(), waiting_.end(), [](const Request* a, const Request* b) {
    return std::tie(a->priority, a->arrivalSeq) < std::tie(b->priority, b->arrivalSeq);
  });
}

void Scheduler::scheduleWaiting(SchedulerOutput& out, double now) {
  while (!waiting_.empty() && budgetLeft_ > 0 && int(running_.size()) < knobs().maxNumSeqs &&
         int(out.seqs.size()) < knobs().maxNumSeqs) {
    auto it = nextWaiting();
    Request* r = *it;
    // Knobs changed since it was queued (max_model_len) can leave it unschedulable for
    // good; only a waiting request can be rejected, never a running one.
    std::string reason = neverSchedulableReason(*r);
    if (!reason.empty()) {
      waiting_.erase(it);
      out.rejected.push_back({r, reason});
      continue;
    }
    const bool caching = knobs().enablePrefixCaching;
    const PrefixHit hit = caching ? kv_->findCachedPrefix(r->tokenIds) : PrefixHit{};
    const int numNewTotal = r->numTokens() - hit.numTokens;
    if (!knobs().enableChunkedPrefill && capChunk(numNewTotal, numNewTotal) > budgetLeft_) break;
    const int numNew = capChunk(numNewTotal, budgetLeft_);
    // vLLM's scheduler_reserve_full_isl: admit only if the whole current sequence fits
    // now, not just this chunk (else it is admitted and preempted again later).
    const int numFullSequence = knobs().schedulerReserveFullIsl ? r->numTokens() : 0;
    // Checked first so that a request blocked at the head of the queue for want of
    // blocks is not explained again at every step it waits.
    if (!kv_->canAllocateSlots(r->id, hit.numTokens + numNew, &hit, numFullSequence)) break;
    // Explained before allocating: the allocation registers this request's own blocks.
    PrefixMiss miss;
    if (!r->admittedOnce) miss = kv_->explainMiss(r->tokenIds, r->numPromptTokens, hit, caching);
    // Registers the blocks this step fills at once: a later admission of this step hits them.
    if (!kv_->allocateSlots(r->id, hit.numTokens + numNew, &hit, hashable(*r), numFullSequence)) break;

    waiting_.erase(it);
    running_.push_back(r);
    r->state = RequestState::Running;
    r->numComputedTokens = hit.numTokens;
    if (!r->timeline.firstScheduledTime) r->timeline.firstScheduledTime = now;
    if (!r->admittedOnce) {
      r->timeline.numCachedPromptTokens = hit.numTokens;
      recordPrefixMiss(*r, std::move(miss), out);
    } else {
      r->timeline.prefixMiss.recomputedAfterPreemption += std::max(0, r->numComputedBeforePreemption - hit.numTokens);
      r->numComputedBeforePreemption = 0;
    }
    r->admittedOnce = true;
    recordPrefixLookup(*r, hit.numTokens, out);
    out.seqs.push_back({r, numNew, hit.numTokens, hit.numTokens + numNew == r->numTokens()});
    budgetLeft_ -= numNew;
  }
}

// Every first admission, caching on or off: hits + missed tokens = prompt tokens.
void Scheduler::recordPrefixMiss(Request& r, PrefixMiss miss, SchedulerOutput& out) {
  for (int i = 0; i < kNumPrefixMissReasons; ++i) out.prefixMissTokens[size_t(i)] += miss.numTokens[size_t(i)];
  r.timeline.prefixMiss = std::move(miss);
}

// vLLM's PrefixCacheStats: only with caching on; a resumed request mostly hits its own
// blocks, so it is kept apart and left out of the hit rate.
void Scheduler::recordPrefixLookup(const Request& r, int numHitTokens, SchedulerOutput& out) {
  if (!knobs().enablePrefixCaching) return;
  if (r.timeline.numPreemptions > 0) {
    out.preemptedPrefixQueryTokens += r.numTokens();
    out.preemptedPrefixHitTokens += numHitTokens;
    return;
  }
  out.prefixQueryRequests += 1;
  out.prefixQueryTokens += r.numTokens();
  out.prefixHitTokens += numHitTokens;
}

void Scheduler::commitStep(const SchedulerOutput& out) {
  for (const ScheduledSeq& s : out.seqs) {
    Request* r = s.request;
    if (r->isFinished() || r->state != RequestState::Running) continue;
    r->numComputedTokens = s.numComputedBefore + s.numNewTokens - s.numSpecTokens();
    kv_->cacheFullBlocks(r->id, hashable(*r), r->numComputedTokens);
  }
}

void Scheduler::acceptDrafts(Request* r, int numAccepted) {
  if (r->isFinished() || r->state != RequestState::Running) return;
  r->numComputedTokens += numAccepted;
  kv_->cacheFullBlocks(r->id, hashable(*r), r->numComputedTokens);
  kv_->trimTo(r->id, r->numTokens());
}

void Scheduler::abortStep() { kv_->dropUnwrittenHashes(); }

void Scheduler::finishRequest(Request* r, RequestState state) {
  auto run = std::find(running_.begin(), running_.end(), r);
  if (run != running_.end()) running_.erase(run);
  auto wait = std::find(waiting_.begin(), waiting_.end(), r);
  if (wait != waiting_.end()) waiting_.erase(wait);
  kv_->free(r->id);
  r->state = state;
}

}  // namespace lwb
