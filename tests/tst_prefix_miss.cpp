// Why the prefix cache missed: hand-computed scenarios through the real scheduler and KV
// books, one per reason and a few mixed, each asserting the exact token count of every
// reason; and a randomized workload asserting, for every request, cached tokens + the
// reasons' counts = its prompt length. Blocks of 4 tokens; a fake forward pass appends
// token 7 where a token is due; the free queue starts 0, 1, 2, ... (worked out as in
// tst_scheduler_scenarios).
#include <QtTest>

#include <map>
#include <memory>
#include <random>

#include "engine/kv/kv_cache_manager.h"
#include "engine/sched/scheduler.h"

using namespace lwb;

namespace {

using Ids = std::vector<int>;
using R = PrefixMissReason;

struct Harness {
  ConfigInForce config;
  Scheduler sched;
  std::vector<std::unique_ptr<Request>> reqs;
  double now = 0;

  Harness(const EngineConfig& c, int numBlocks, BlockHashFn hashFn = {})
      : config{c, 1024}, sched(config, std::make_unique<KvCacheManager>(numBlocks, c.blockSize, std::move(hashFn))) {}

  Request* add(const Ids& prompt, int maxTokens = 2) {
    auto r = std::make_unique<Request>();
    r->id = int64_t(reqs.size()) + 1;
    r->tokenIds = prompt;
    r->numPromptTokens = int(prompt.size());
    r->sampling.maxTokens = maxTokens;
    reqs.push_back(std::move(r));
    const std::string reason = sched.addRequest(reqs.back().get());
    if (!reason.empty()) qFatal("rejected: %s", reason.c_str());
    return reqs.back().get();
  }

  SchedulerOutput step() {
    now += 1;
    SchedulerOutput out = sched.schedule(now);
    sched.commitStep(out);
    for (const ScheduledSeq& s : out.seqs)
      if (s.needLogits) s.request->tokenIds.push_back(7);
    return out;
  }
  void finish(Request* r) { sched.finishRequest(r, RequestState::Finished); }
};

Ids range(int n, int first) {
  Ids v;
  for (int i = 0; i < n; ++i) v.push_back(first + i);
  return v;
}
Ids cat(Ids a, const Ids& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

EngineConfig knobs(bool caching = true) {
  EngineConfig c;
  c.blockSize = 4;
  c.maxNumBatchedTokens = 64;
  c.maxNumSeqs = 8;
  c.enablePrefixCaching = caching;
  return c;
}

// The expected split of one request: cached tokens and {reason: tokens} (others 0).
void expectSplit(const Request* r, int cached, std::map<R, int> missed) {
  const PrefixMiss& m = r->timeline.prefixMiss;
  QVERIFY(m.accounted);
  QCOMPARE(r->timeline.numCachedPromptTokens, cached);
  for (int i = 0; i < kNumPrefixMissReasons; ++i) {
    const R reason = prefixMissReasonAt(i);
    const int want = missed.count(reason) ? missed[reason] : 0;
    if (m[reason] != want)
      QFAIL(qPrintable(QString("request %1, %2: %3 tokens, expected %4")
                           .arg(r->id)
                           .arg(QString::fromUtf8(prefixMissReasonName(reason).data()))
                           .arg(m[reason])
                           .arg(want)));
  }
  QCOMPARE(cached + m.numMissed(), r->numPromptTokens);
}

}  // namespace

class TestPrefixMiss : public QObject {
  Q_OBJECT

 private slots:
  void reasonNamesRoundTrip() {
    for (int i = 0; i < kNumPrefixMissReasons; ++i)
      QCOMPARE(prefixMissReasonIndex(prefixMissReasonName(prefixMissReasonAt(i))), i);
    QCOMPARE(prefixMissReasonIndex("unknown"), -1);
  }

  // Caching off: all 10 prompt tokens, the partial block included.
  void cachingOffCountsEveryToken() {
    Harness h(knobs(false), 8);
    h.add(range(10, 100));
    Request* b = h.add(range(10, 100));
    h.step();
    expectSplit(b, 0, {{R::CachingOff, 10}});
  }

  // A first prompt of 10 tokens in an empty cache: 2 full blocks cold, 2 tokens partial.
  void coldAndPartialBlock() {
    Harness h(knobs(), 8);
    Request* a = h.add(range(10, 100));
    h.step();
    expectSplit(a, 0, {{R::Cold, 8}, {R::PartialBlock, 2}});
    QCOMPARE(a->timeline.prefixMiss.divergedAtToken, -1);
  }

  // b repeats a's 8 tokens (a multiple of the block size): the lookup covers at most 7
  // tokens, so block 1, cached, is dropped only for the last token: 4 cached, 4 last_token.
  void lastTokenBlock() {
    Harness h(knobs(), 8);
    Request* a = h.add(range(8, 100));
    h.step();
    h.finish(a);
    Request* b = h.add(range(8, 100));
    h.step();
    expectSplit(b, 4, {{R::LastToken, 4}});
  }

  // a (8 tokens: blocks 0, 1) finishes: free queue 2..7, 1, 0 with 4 blocks: 2, 3, 1, 0.
  // z (12 tokens, 3 blocks) takes 2, 3, 1: a's second block is evicted at time 2, by z.
  // c = a's 8 tokens + 1: block 0 hits, block 1 evicted, 1 token partial.
  void evictedBlock() {
    Harness h(knobs(), 4);
    Request* a = h.add(range(8, 100));
    h.step();
    h.finish(a);
    Request* z = h.add(range(12, 500));
    h.step();
    h.finish(z);
    Request* c = h.add(cat(range(8, 100), {300}));
    h.step();
    expectSplit(c, 4, {{R::Evicted, 4}, {R::PartialBlock, 1}});
    QCOMPARE(c->timeline.prefixMiss.evictedTime, 2.0);
    QCOMPARE(c->timeline.prefixMiss.evictedBy, (std::vector<int64_t>{z->id}));
  }

  // b = a's 12 tokens with token 6 changed, + 1: block 0 hits; block 1 diverges at token
  // 6 (a shared tokens 0..5); block 2, never seen, is cold; 1 token partial.
  void divergedInsideABlock() {
    Harness h(knobs(), 16);
    Request* a = h.add(range(12, 100));
    h.step();
    h.finish(a);
    Ids p = cat(range(12, 100), {300});
    p[6] = 999;
    Request* b = h.add(p);
    h.step();
    expectSplit(b, 4, {{R::Diverged, 4}, {R::Cold, 4}, {R::PartialBlock, 1}});
    const PrefixMiss& m = b->timeline.prefixMiss;
    QCOMPARE(m.divergedAtToken, 6);
    QCOMPARE(m.divergedOurIds, (Ids{999, 107, 108, 109, 110, 111}));
    QCOMPARE(m.divergedTheirIds, (Ids{106, 107}));  // the rest of a's block
  }

  // Divergence in the first block: b shares a's first token, diverged at 1; c shares no
  // token, cold. At a block boundary: d shares a's first block and differs from a's
  // second block at its first token: diverged at 4.
  void divergedAtTheStartAndAtABoundary() {
    Harness h(knobs(), 32);
    Request* a = h.add(range(8, 100), 1);
    h.step();
    h.finish(a);
    Request* b = h.add(cat({100}, range(8, 500)));
    Request* c = h.add(range(9, 900));
    Request* d = h.add(cat(range(4, 100), range(5, 700)));
    h.step();
    expectSplit(b, 0, {{R::Diverged, 4}, {R::Cold, 4}, {R::PartialBlock, 1}});
    QCOMPARE(b->timeline.prefixMiss.divergedAtToken, 1);
    expectSplit(c, 0, {{R::Cold, 8}, {R::PartialBlock, 1}});
    QCOMPARE(c->timeline.prefixMiss.divergedAtToken, -1);
    expectSplit(d, 4, {{R::Diverged, 4}, {R::PartialBlock, 1}});
    QCOMPARE(d->timeline.prefixMiss.divergedAtToken, 4);
  }

  // The chat: turn 1 = system prompt (blocks S0, S1) + a user turn (U1), 12
  // tokens, finishes (free queue 3..6, 2, 1, 0 of 7 blocks). Pressure: y (16 tokens)
  // takes 3..6, z (12 tokens) takes 2, 1, 0: all of turn 1's blocks are evicted, by z.
  // Turn 3's system prompt differs at its second block's second token (a date), 14
  // tokens: S0 evicted (4), S1' diverged at token 5 (4), U3 cold (4), 2 partial.
  void chatDivergesInsideTheSecondBlockAfterTheFirstWasEvicted() {
    Harness h(knobs(), 7);
    const Ids s0 = range(4, 100), s1 = range(4, 104);
    Request* turn1 = h.add(cat(cat(s0, s1), range(4, 200)));
    h.step();
    h.finish(turn1);
    Request* y = h.add(range(16, 600));
    Request* z = h.add(range(12, 700));
    h.step();
    h.finish(y);
    h.finish(z);
    Ids s1Changed = s1;
    s1Changed[1] = 555;
    Request* turn3 = h.add(cat(cat(cat(s0, s1Changed), range(4, 300)), {7, 8}));
    h.step();
    expectSplit(turn3, 0, {{R::Evicted, 4}, {R::Diverged, 4}, {R::Cold, 4}, {R::PartialBlock, 2}});
    const PrefixMiss& m = turn3->timeline.prefixMiss;
    QCOMPARE(m.divergedAtToken, 5);
    QCOMPARE(m.divergedOurIds, (Ids{555, 106, 107, 300, 301, 302}));
    QCOMPARE(m.divergedTheirIds, (Ids{105, 106, 107}));
    QCOMPARE(m.evictedBy, (std::vector<int64_t>{z->id}));
  }

  // A block still cached behind an evicted one. With tail-first freeing and LRU a child
  // is always evicted before its parent, so this takes a forced hash collision: every
  // block hashes to 1, and a lookup matches by tokens alone. a = [A B], b = [C B] hits
  // nothing on C; B is cached, but behind the miss.
  void cachedBehindAMiss() {
    Harness h(knobs(), 16, [](uint64_t, const int*, int) { return uint64_t(1); });
    Request* a = h.add(range(8, 100));
    h.step();
    h.finish(a);
    Request* b = h.add(cat(cat(range(4, 900), range(4, 104)), {1}));
    h.step();
    QCOMPARE(b->timeline.prefixMiss[R::BehindMiss], 4);
    QCOMPARE(b->timeline.numCachedPromptTokens + b->timeline.prefixMiss.numMissed(), 9);
  }

  // Preemption (tst_scheduler_scenarios' resumedRequestsStayOutOfTheHitRate): b computed
  // its 8 prompt tokens, is preempted and its tail block evicted; resumed, its head block
  // hits: 4 of the 8 tokens it had computed are computed again. Its first-admission
  // split is untouched.
  void recomputedAfterPreemptionIsApart() {
    Harness h(knobs(), 4);
    h.add(range(8, 1000));
    Request* b = h.add(range(8, 2000));
    h.step();
    SchedulerOutput s2 = h.step();
    QCOMPARE(s2.preempted, (std::vector<Request*>{b}));
    h.finish(h.reqs[0].get());
    h.step();
    QCOMPARE(b->timeline.prefixMiss.recomputedAfterPreemption, 4);
    expectSplit(b, 0, {{R::Cold, 8}});
  }

  // The step's counts are the sum of its first admissions' splits, and with caching on
  // the missed tokens = vLLM's queries − hits.
  void stepCountsMatchTheRequests() {
    Harness h(knobs(), 16);
    h.add(range(10, 100));
    h.step();
    Request* b = h.add(range(13, 100));
    Request* c = h.add(range(6, 400));
    SchedulerOutput s = h.step();
    int64_t missed = 0;
    for (int i = 0; i < kNumPrefixMissReasons; ++i) {
      QCOMPARE(s.prefixMissTokens[size_t(i)], int64_t(b->timeline.prefixMiss.numTokens[size_t(i)] +
                                                      c->timeline.prefixMiss.numTokens[size_t(i)]));
      missed += s.prefixMissTokens[size_t(i)];
    }
    QCOMPARE(missed, s.prefixQueryTokens - s.prefixHitTokens);
  }

  // The bound: the history never holds more than its capacity; a block evicted longer
  // ago than that many registrations reads as never seen.
  void historyIsBounded() {
    PrefixHistory hist(4, 2);
    const int t[2] = {1, 2};
    hist.onEvicted(11, std::nullopt, t);
    for (uint64_t h = 20; h < 24; ++h) {
      const int u[2] = {int(h), 0};
      hist.onStored(h, std::nullopt, u);
    }
    QVERIFY(hist.find(11) == nullptr);
    QVERIFY(hist.find(23) != nullptr);
    QCOMPARE(hist.capacity(), 4);
    QCOMPARE(KvCacheManager::historyCapacityFor(10), 4096);
    QCOMPARE(KvCacheManager::historyCapacityFor(1 << 20), 131072);
  }

  // Random prompts over a few shared heads, a small pool, random finishes, caching
  // toggled: every request's cached tokens + reasons = its prompt length, and per step
  // the missed tokens (caching on) = queries − hits.
  void randomWorkloadKeepsTheInvariant() {
    std::mt19937 rng(44);
    EngineConfig c = knobs();
    c.maxNumBatchedTokens = 48;
    Harness h(c, 24);
    std::vector<Ids> heads;
    for (int i = 0; i < 4; ++i) heads.push_back(range(12, 100 * (i + 1)));
    int numChecked = 0;
    std::array<int64_t, kNumPrefixMissReasons> seen{};
    for (int stepNo = 0; stepNo < 400; ++stepNo) {
      if (rng() % 3 == 0) {
        Ids p = heads[rng() % heads.size()];
        p.resize(size_t(1 + rng() % 12));
        if (rng() % 2) p[rng() % p.size()] = 5000 + int(rng() % 7);
        for (int n = int(rng() % 14); n > 0; --n) p.push_back(int(rng() % 9));
        h.add(p, 1 + int(rng() % 6));
      }
      if (stepNo % 97 == 50) h.config.knobs.enablePrefixCaching = !h.config.knobs.enablePrefixCaching;
      const SchedulerOutput s = h.step();
      int64_t missedOn = 0;
      for (int i = 1; i < kNumPrefixMissReasons; ++i) missedOn += s.prefixMissTokens[size_t(i)];
      QCOMPARE(missedOn, s.prefixQueryTokens - s.prefixHitTokens);
      for (const auto& r : h.reqs) {
        if (r->state != RequestState::Running || r->isFinished()) continue;
        if (r->numOutputTokens() >= r->sampling.maxTokens) h.finish(r.get());
      }
    }
    for (const auto& r : h.reqs) {
      if (!r->admittedOnce) continue;
      ++numChecked;
      for (int i = 0; i < kNumPrefixMissReasons; ++i) seen[size_t(i)] += r->timeline.prefixMiss.numTokens[size_t(i)];
      QCOMPARE(r->timeline.numCachedPromptTokens + r->timeline.prefixMiss.numMissed(), r->numPromptTokens);
    }
    QVERIFY(numChecked > 50);
    for (R reason : {R::CachingOff, R::PartialBlock, R::LastToken, R::Evicted, R::Diverged, R::Cold})
      QVERIFY2(seen[size_t(reason)] > 0, prefixMissReasonName(reason).data());
  }
};

QTEST_GUILESS_MAIN(TestPrefixMiss)
#include "tst_prefix_miss.moc"
