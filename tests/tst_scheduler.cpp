// Scheduler decisions, step by step, on hand-made scenarios with a fake forward pass
// (numComputedTokens advance, a fixed token is "sampled").
#include <QtTest>

#include <memory>

#include "engine/sched/scheduler.h"

using namespace lwb;

namespace {

struct Harness {
  ConfigInForce config;  // the engine's role: the scheduler reads it, never copies it
  Scheduler sched;
  std::vector<std::unique_ptr<Request>> reqs;

  Harness(EngineConfig c, int numBlocks, int maxModelLen = 1024)
      : config{c, maxModelLen}, sched(config, std::make_unique<KvCacheManager>(numBlocks, c.blockSize)) {}

  Request* add(int promptLen, int maxTokens = 100, int priority = 0, int firstToken = 1000) {
    std::vector<int> prompt;
    for (int i = 0; i < promptLen; ++i) prompt.push_back(firstToken + i);
    return addPrompt(prompt, maxTokens, priority);
  }

  Request* addPrompt(const std::vector<int>& prompt, int maxTokens = 100, int priority = 0) {
    auto r = std::make_unique<Request>();
    r->id = int64_t(reqs.size()) + 1;
    r->tokenIds = prompt;
    r->numPromptTokens = int(prompt.size());
    r->sampling.maxTokens = maxTokens;
    r->priority = priority;
    reqs.push_back(std::move(r));
    std::string reason = sched.addRequest(reqs.back().get());
    if (!reason.empty()) reqs.back()->state = RequestState::Rejected;
    return reqs.back().get();
  }

  // One step: schedule, "forward", append token 7 where logits were due.
  SchedulerOutput step() {
    SchedulerOutput out = sched.schedule(0);
    sched.commitStep(out);
    for (const ScheduledSeq& s : out.seqs)
      if (s.needLogits) s.request->tokenIds.push_back(7);
    return out;
  }

  static int tokensOf(const SchedulerOutput& out, const Request* r) {
    for (const ScheduledSeq& s : out.seqs)
      if (s.request == r) return s.numNewTokens;
    return 0;
  }
};

EngineConfig knobs(int budget, int maxSeqs = 128, bool chunked = true) {
  EngineConfig c;
  c.maxNumBatchedTokens = budget;
  c.maxNumSeqs = maxSeqs;
  c.enableChunkedPrefill = chunked;
  c.blockSize = 4;
  return c;
}

}  // namespace

class TestScheduler : public QObject {
  Q_OBJECT

 private slots:
  void chunkedPrefillSplitsTheBudget() {
    Harness h(knobs(8), 64);
    Request* a = h.add(20);
    SchedulerOutput s1 = h.step();
    QCOMPARE(Harness::tokensOf(s1, a), 8);
    QVERIFY(!s1.seqs[0].needLogits);  // mid-prompt chunk: no token
    QCOMPARE(a->numOutputTokens(), 0);
    Request* b = h.add(3);
    SchedulerOutput s2 = h.step();  // running first: a's chunk takes the whole budget
    QCOMPARE(Harness::tokensOf(s2, a), 8);
    QCOMPARE(Harness::tokensOf(s2, b), 0);
    SchedulerOutput s3 = h.step();  // a: last 4 prompt tokens, b: 3 tokens fill 7 of 8
    QCOMPARE(Harness::tokensOf(s3, a), 4);
    QCOMPARE(Harness::tokensOf(s3, b), 3);
    QCOMPARE(s3.numPrefillTokens, 7);
    QCOMPARE(a->numOutputTokens(), 1);
    SchedulerOutput s4 = h.step();  // both decode
    QCOMPARE(s4.numDecodeTokens, 2);
    QCOMPARE(s4.numPrefillTokens, 0);
  }

  void longPrefillThresholdCapsAChunk() {
    EngineConfig c = knobs(64);
    c.longPrefillTokenThreshold = 5;
    Harness h(c, 64);
    Request* a = h.add(12);
    QCOMPARE(Harness::tokensOf(h.step(), a), 5);
  }

  void withoutChunkingAPromptMustFitWhole() {
    Harness h(knobs(10, 128, false), 64);
    Request* a = h.add(8);
    Request* b = h.add(6, 100, 0, 2000);  // does not fit next to a: waits a step
    SchedulerOutput s1 = h.step();
    QCOMPARE(Harness::tokensOf(s1, a), 8);
    QCOMPARE(Harness::tokensOf(s1, b), 0);
    SchedulerOutput s2 = h.step();
    QCOMPARE(Harness::tokensOf(s2, a), 1);
    QCOMPARE(Harness::tokensOf(s2, b), 6);
  }

  // The scheduler keeps no copy of the knobs: what the engine puts in its ConfigInForce
  // is what the next schedule() uses (budget, caching, max_model_len).
  void readsTheConfigInForceAtEveryStep() {
    Harness h(knobs(8), 64);
    Request* a = h.add(20);
    QCOMPARE(Harness::tokensOf(h.step(), a), 8);
    h.config.knobs.maxNumBatchedTokens = 5;
    SchedulerOutput s = h.step();
    QCOMPARE(s.tokenBudget, 5);
    QCOMPARE(Harness::tokensOf(s, a), 5);
    h.config.knobs.enablePrefixCaching = false;
    Request* b = h.add(20);  // the same prompt as a: would hit a's first blocks
    h.config.knobs.maxNumBatchedTokens = 64;
    SchedulerOutput s2 = h.step();
    QCOMPARE(s2.prefixQueryRequests, int64_t(0));
    QCOMPARE(Harness::tokensOf(s2, b), 20);
    h.config.maxModelLen = 10;
    QCOMPARE(h.add(12, 1, 0, 5000)->state, RequestState::Rejected);
  }

  void aRequestLargerThanThePoolIsRejected() {
    Harness h(knobs(64), 4);  // 16 tokens of KV in all
    Request* r = h.add(10, 10);
    QCOMPARE(r->state, RequestState::Rejected);
    QCOMPARE(h.add(10, 6)->state, RequestState::Waiting);
  }

  void maxNumSeqsLimitsAdmissions() {
    Harness h(knobs(100, 2), 64);
    Request* a = h.add(3);
    Request* b = h.add(3);
    Request* c = h.add(3);
    SchedulerOutput s = h.step();
    QCOMPARE(int(s.seqs.size()), 2);
    QCOMPARE(Harness::tokensOf(s, c), 0);
    QCOMPARE(h.sched.numWaiting(), 1);
    h.sched.finishRequest(a, RequestState::Finished);
    SchedulerOutput s2 = h.step();
    QCOMPARE(Harness::tokensOf(s2, b), 1);
    QCOMPARE(Harness::tokensOf(s2, c), 3);
  }

  void priorityPolicyAdmitsLowestValueFirst() {
    EngineConfig c = knobs(4, 1);
    c.schedulingPolicy = SchedulingPolicy::Priority;
    Harness h(c, 64);
    Request* low = h.add(3, 100, 5);
    Request* high = h.add(3, 100, 1);
    SchedulerOutput s = h.step();
    QCOMPARE(Harness::tokensOf(s, high), 3);
    QCOMPARE(Harness::tokensOf(s, low), 0);
  }

  void fcfsPreemptsTheLatestAdmittedAndRequeuesItFirst() {
    Harness h(knobs(64), 4);  // 4 blocks of 4 tokens
    Request* a = h.add(8, 8);
    Request* b = h.add(8, 8, 0, 2000);
    h.step();  // both prefilled: 2 blocks each, 1 token sampled → 9 tokens
    SchedulerOutput s = h.step();  // a needs a 3rd block: none free → b is preempted
    QCOMPARE(int(s.preempted.size()), 1);
    QCOMPARE(s.preempted[0], b);
    QCOMPARE(b->state, RequestState::Preempted);
    QCOMPARE(b->numComputedTokens, 0);
    QCOMPARE(b->timeline.numPreemptions, 1);
    QCOMPARE(h.sched.waiting().front(), b);
    QCOMPARE(Harness::tokensOf(s, a), 1);
    QCOMPARE(int(s.seqs.size()), 1);  // no admissions in a step that preempted
    QVERIFY(h.sched.kv().holds(a->id));
    QVERIFY(!h.sched.kv().holds(b->id));
  }

  void priorityPreemptsTheLowestPriorityEvenIfScheduledEarlier() {
    EngineConfig c = knobs(64);
    c.schedulingPolicy = SchedulingPolicy::Priority;
    Harness h(c, 4);
    Request* low = h.add(4, 8, 9);  // admitted first: running order [low, high]
    h.step();
    Request* high = h.add(7, 5, 0, 2000);
    h.step();  // low: 2 blocks, high: 2 blocks, the pool is full
    h.step();
    QCOMPARE(h.sched.running().front(), low);
    // high needs a 3rd block; the victim is low, already scheduled this step: its
    // token goes back to the budget.
    SchedulerOutput s = h.step();
    QCOMPARE(s.preempted.size(), size_t(1));
    QCOMPARE(s.preempted[0], low);
    QCOMPARE(Harness::tokensOf(s, high), 1);
    QCOMPARE(Harness::tokensOf(s, low), 0);
    QCOMPARE(s.numScheduledTokens, 1);
    QCOMPARE(int(s.seqs.size()), 1);
  }

  void readmissionHitsItsOwnCachedBlocks() {
    Harness h(knobs(64), 4);
    h.add(8, 8);
    Request* b = h.add(8, 8, 0, 2000);
    h.step();
    h.step();  // b preempted: its full blocks stay cached-free
    QCOMPARE(b->state, RequestState::Preempted);
    QVERIFY(h.sched.kv().usage().numCachedFree >= 1);
    h.sched.finishRequest(h.reqs[0].get(), RequestState::Finished);
    SchedulerOutput s = h.step();
    // 9 tokens (8 prompt + 1 output). Its tail block was freed first, so it was the one
    // evicted when a grew; the head block still hits.
    QCOMPARE(s.preemptedPrefixHitTokens, int64_t(4));
    QCOMPARE(s.preemptedPrefixQueryTokens, int64_t(9));
    QCOMPARE(s.prefixHitTokens, int64_t(0));  // a resumed request stays out of the hit rate (vLLM)
    QCOMPARE(s.prefixQueryTokens, int64_t(0));
    QCOMPARE(Harness::tokensOf(s, b), 9 - 4);
    QCOMPARE(b->timeline.numCachedPromptTokens, 0);  // recorded on first admission only
  }

  void runningRequestThatPreemptsItselfStopsTheStep() {
    Harness h(knobs(64), 3);
    Request* a = h.add(11, 1);  // grows to 12 tokens = 3 blocks
    h.step();
    QCOMPARE(a->numTokens(), 12);
    QCOMPARE(int(h.sched.kv().blockIds(a->id).size()), 3);
  }
  // 4 prompts sharing a 64-token head arrive together: the 2nd..4th hit the blocks the
  // 1st registered when it was allocated, in the very step that computes them.
  void sameStepAdmissionsShareAPrefix() {
    EngineConfig c = knobs(2048);
    c.blockSize = 16;
    Harness h(c, 64);
    std::vector<Request*> rs;
    for (int p = 0; p < 4; ++p) {
      std::vector<int> prompt;
      for (int i = 0; i < 64; ++i) prompt.push_back(100 + i);
      for (int i = 0; i < 3 + 4 * p; ++i) prompt.push_back(1000 * (p + 1) + i);
      rs.push_back(h.addPrompt(prompt));
    }
    SchedulerOutput s1 = h.sched.schedule(0);
    QCOMPARE(int(s1.seqs.size()), 4);
    QCOMPARE(s1.seqs[0].request, rs[0]);  // the writer comes first in the batch
    QCOMPARE(s1.seqs[0].numComputedBefore, 0);
    QCOMPARE(s1.prefixHitTokens, int64_t(3 * 64));
    const std::vector<int>& first = h.sched.kv().blockIds(rs[0]->id);
    for (int p = 1; p < 4; ++p) {
      QCOMPARE(s1.seqs[size_t(p)].request, rs[size_t(p)]);
      QCOMPARE(s1.seqs[size_t(p)].numComputedBefore, 64);
      QCOMPARE(rs[size_t(p)]->timeline.numCachedPromptTokens, 64);
      const std::vector<int>& mine = h.sched.kv().blockIds(rs[size_t(p)]->id);
      QVERIFY(std::equal(first.begin(), first.begin() + 4, mine.begin()));
    }
    h.sched.commitStep(s1);
    QCOMPARE(h.sched.kv().numUnwrittenHashes(), 0);
  }

  // The forward pass of that step fails: the engine aborts the step and finishes its
  // requests; no hash is left on the blocks that were never written.
  void abortedStepLeavesNoUnwrittenHash() {
    EngineConfig c = knobs(2048);
    c.blockSize = 16;
    Harness h(c, 64);
    std::vector<int> prompt;
    for (int i = 0; i < 70; ++i) prompt.push_back(100 + i);
    Request* a = h.addPrompt(prompt);
    Request* b = h.addPrompt(prompt);
    SchedulerOutput s1 = h.sched.schedule(0);
    QCOMPARE(s1.prefixHitTokens, int64_t(64));
    QCOMPARE(h.sched.kv().numUnwrittenHashes(), 4);
    h.sched.abortStep();
    h.sched.finishRequest(a, RequestState::Finished);
    h.sched.finishRequest(b, RequestState::Finished);
    QCOMPARE(h.sched.kv().usage().numCachedFree, 0);
    Request* again = h.addPrompt(prompt);
    SchedulerOutput s2 = h.sched.schedule(0);
    QCOMPARE(s2.prefixHitTokens, int64_t(0));
    QCOMPARE(s2.seqs[0].request, again);
  }
};

QTEST_GUILESS_MAIN(TestScheduler)
#include "tst_scheduler.moc"
