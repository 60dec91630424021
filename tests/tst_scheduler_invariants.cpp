// Randomized invariants of the scheduler and KV books with a fake forward pass (no
// model): thousands of arrivals, aborts and knob changes. Every step: the token budget
// and max_num_seqs hold, ref counts equal the number of owners, every owned block that
// is hashed holds exactly the owner's tokens at its position. A shadow of the KV
// contents (what each forward pass would write) checks that every row of a batch reads
// only slots written with its own tokens (prefix hits on blocks registered in the same
// step included) and that, after every step, each hashed block holds what was written
// into it, also after randomly failed forward passes. At the end: no block is owned and
// every request finished or was rejected with a reason. With speculation: random drafts
// ride in the batch (their K/V is written), a random prefix of them is accepted, and
// the rest roll back: no hash ever covers a rejected draft's slot, blocks past the
// sequence go back to the pool, computed counts stay one short of the tokens.
#include <QtTest>

#include <map>
#include <memory>
#include <random>

#include "engine/sched/scheduler.h"
#include "engine/spec/proposer.h"

using namespace lwb;

namespace {

struct Sim {
  std::mt19937 rng;
  ConfigInForce inForce;  // the engine's role: knob changes land here, the scheduler reads them
  EngineConfig& config = inForce.knobs;
  int& maxModelLen = inForce.maxModelLen;
  Scheduler sched;
  std::vector<std::unique_ptr<Request>> reqs;
  std::map<int64_t, std::string> rejected;
  std::vector<std::vector<int>> prefixes;  // shared heads, so prefix hits happen
  std::vector<std::vector<int>> content;   // [block][slot]: token whose K/V it holds, -1 = never written
  int64_t numFailedSteps = 0;
  bool speculate = false;
  int numSpeculativeTokens = 0;  // k in force (random knob when speculating)
  int64_t numAcceptedDrafts = 0, numRejectedDrafts = 0;
  int64_t numPrefixHitTokens = 0, numPreemptions = 0;  // over every step

  Sim(uint32_t seed, int numBlocks, BlockHashFn hashFn)
      : rng(seed), inForce{initialKnobs(), 96},
        sched(inForce, std::make_unique<KvCacheManager>(numBlocks, config.blockSize, hashFn)),
        content(size_t(numBlocks), std::vector<int>(size_t(config.blockSize), -1)) {
    for (int p = 0; p < 4; ++p) {
      std::vector<int> head;
      for (int i = 0; i < 8 + 8 * p; ++i) head.push_back(int(rng() % 50));
      prefixes.push_back(head);
    }
  }

  static EngineConfig initialKnobs() {
    EngineConfig c;
    c.blockSize = 4;
    c.maxNumBatchedTokens = 32;
    c.maxNumSeqs = 8;
    return c;
  }

  // Only knobs EngineConfig::validateFor accepts (vLLM's rules): budget >= max_num_seqs,
  // and without chunked prefill budget >= max_model_len.
  void randomKnobs() {
    const int budgets[] = {1, 4, 16, 32, 64, 512};
    config.maxNumBatchedTokens = budgets[rng() % 6];
    config.maxNumSeqs = 1 + int(rng() % std::min(10, config.maxNumBatchedTokens));
    config.enableChunkedPrefill = rng() % 4 != 0;
    config.enablePrefixCaching = rng() % 4 != 0;
    config.longPrefillTokenThreshold = rng() % 3 == 0 ? 1 + int(rng() % 12) : 0;
    config.schedulingPolicy = rng() % 2 ? SchedulingPolicy::Priority : SchedulingPolicy::Fcfs;
    config.schedulerReserveFullIsl = rng() % 4 != 0;
    maxModelLen = 48 + int(rng() % 64);
    numSpeculativeTokens = speculate ? int(rng() % 6) : 0;
    if (!config.enableChunkedPrefill) config.maxNumBatchedTokens = std::max(config.maxNumBatchedTokens, maxModelLen);
  }

  void arrive() {
    auto r = std::make_unique<Request>();
    r->id = int64_t(reqs.size()) + 1;
    if (rng() % 2) r->tokenIds = prefixes[rng() % prefixes.size()];
    const int tail = 1 + int(rng() % 40);
    for (int i = 0; i < tail; ++i) r->tokenIds.push_back(int(rng() % 50));
    r->numPromptTokens = r->numTokens();
    r->sampling.maxTokens = 1 + int(rng() % 24);
    r->priority = int(rng() % 4);
    reqs.push_back(std::move(r));
    Request* p = reqs.back().get();
    if (p->numTokens() >= maxModelLen) {  // the engine refuses these at addRequest
      p->state = RequestState::Rejected;
      rejected[p->id] = "too long";
      return;
    }
    std::string reason = sched.addRequest(p);
    if (!reason.empty()) {
      p->state = RequestState::Rejected;
      rejected[p->id] = reason;
    }
  }

  void abortRandom() {
    if (reqs.empty()) return;
    Request* r = reqs[rng() % reqs.size()].get();
    if (!r->isFinished()) sched.finishRequest(r, RequestState::Finished);
  }

  // Random drafts for decoding requests (what a proposer does before schedule()).
  void propose() {
    for (Request* r : sched.running()) {
      r->specTokenIds.clear();
      const int k = isDecoding(*r) ? draftLimit(*r, numSpeculativeTokens, maxModelLen) : 0;
      const int n = k > 0 ? int(rng() % unsigned(k + 1)) : 0;
      for (int i = 0; i < n; ++i) r->specTokenIds.push_back(int(rng() % 50));
    }
  }

  // Appends what verification keeps: a random prefix of the drafts, then one token;
  // stops early when the request finishes. Returns false when it finished.
  bool appendToken(Request* r, int token) {
    r->tokenIds.push_back(token);
    if (r->numOutputTokens() >= r->sampling.maxTokens || r->numTokens() >= maxModelLen || rng() % 20 == 0) {
      sched.finishRequest(r, RequestState::Finished);
      return false;
    }
    return true;
  }
  void verify(const ScheduledSeq& s) {
    Request* r = s.request;
    const int numAccepted = int(rng() % unsigned(s.numSpecTokens() + 1));
    int kept = 0;
    bool alive = true;
    for (; kept < numAccepted && alive; ++kept) alive = appendToken(r, s.specTokenIds[size_t(kept)]);
    if (alive) alive = appendToken(r, 50 + int(rng() % 50));  // the replacement or bonus token
    numAcceptedDrafts += kept;
    numRejectedDrafts += s.numSpecTokens() - kept;
    sched.acceptDrafts(r, kept);
    if (!alive) return;
    QCOMPARE(r->numComputedTokens, r->numTokens() - 1);
    QVERIFY(int(sched.kv().blockIds(r->id).size()) <= sched.kv().blocksFor(r->numTokens()));
  }

  void step() {
    if (speculate) propose();
    const std::vector<Request*> runningBefore = sched.running();
    SchedulerOutput out = sched.schedule(0);
    numPrefixHitTokens += out.prefixHitTokens;
    numPreemptions += int64_t(out.preempted.size());
    for (const RejectedRequest& rj : out.rejected) {
      QVERIFY(!rj.reason.empty());
      // Never a request that already ran (vLLM never ends one because of a budget).
      QVERIFY(std::find(runningBefore.begin(), runningBefore.end(), rj.request) == runningBefore.end());
      QVERIFY(rj.request->numOutputTokens() == 0 || rj.request->numTokens() >= maxModelLen);
      rj.request->state = RequestState::Rejected;
      rejected[rj.request->id] = rj.reason;
    }
    QVERIFY(out.numScheduledTokens <= config.maxNumBatchedTokens);
    QVERIFY(int(out.seqs.size()) <= config.maxNumSeqs);
    for (const ScheduledSeq& s : out.seqs) {
      QVERIFY(s.numNewTokens > 0);
      QCOMPARE(s.numComputedBefore, s.request->numComputedTokens);
      QVERIFY(int(sched.kv().blockIds(s.request->id).size()) >=
              sched.kv().blocksFor(s.numComputedBefore + s.numNewTokens));
      // Admitted without chunking: the whole prompt in one step (running requests
      // admitted earlier with chunking on may still finish their prompt in chunks).
      const bool admitted = std::find(runningBefore.begin(), runningBefore.end(), s.request) == runningBefore.end();
      if (admitted && !config.enableChunkedPrefill && config.longPrefillTokenThreshold == 0)
        QVERIFY(s.numComputedBefore + s.numNewTokens >= s.request->numPromptTokens);
    }
    checkBooks();
    if (!out.seqs.empty() && rng() % 25 == 0) {  // the forward pass fails: nothing written
      ++numFailedSteps;
      sched.abortStep();
      for (const ScheduledSeq& s : out.seqs) sched.finishRequest(s.request, RequestState::Finished);
      checkBooks();
      checkHashedBlocksWritten();
      return;
    }
    forward(out);
    sched.commitStep(out);
    for (const ScheduledSeq& s : out.seqs) {
      if (!s.needLogits) continue;
      if (s.numSpecTokens() > 0) verify(s);
      else appendToken(s.request, int(rng() % 50));
    }
    checkBooks();
    checkHashedBlocksWritten();
  }

  // Every row's K/V is written before any row's attention reads (per layer, for the
  // whole batch): apply all writes, then every seq must see its own tokens at
  // positions [0, its last row] through its block table.
  // A seq's rows are its real tokens, then its drafts.
  static int rowToken(const ScheduledSeq& s, int p) {
    const int numReal = s.numComputedBefore + s.numNewTokens - s.numSpecTokens();
    return p < numReal ? s.request->tokenIds[size_t(p)] : s.specTokenIds[size_t(p - numReal)];
  }
  void forward(const SchedulerOutput& out) {
    const int bs = config.blockSize;
    for (const ScheduledSeq& s : out.seqs) {
      const std::vector<int>& blocks = sched.kv().blockIds(s.request->id);
      for (int p = s.numComputedBefore; p < s.numComputedBefore + s.numNewTokens; ++p)
        content[size_t(blocks[size_t(p / bs)])][size_t(p % bs)] = rowToken(s, p);
    }
    for (const ScheduledSeq& s : out.seqs) {
      const std::vector<int>& blocks = sched.kv().blockIds(s.request->id);
      for (int p = 0; p < s.numComputedBefore + s.numNewTokens; ++p)
        QCOMPARE(content[size_t(blocks[size_t(p / bs)])][size_t(p % bs)], rowToken(s, p));
    }
  }

  // Outside a step no hash points at a block whose contents differ from its tokens.
  void checkHashedBlocksWritten() {
    const KvCacheManager& kv = sched.kv();
    QCOMPARE(kv.numUnwrittenHashes(), 0);
    for (int i = 0; i < kv.numBlocks(); ++i) {
      const KvBlock& b = kv.pool().block(i);
      if (b.hash) QCOMPARE(content[size_t(i)], b.tokenIds);
    }
  }

  void checkBooks() {
    const KvCacheManager& kv = sched.kv();
    std::vector<int> owners(size_t(kv.numBlocks()), 0);
    for (int64_t id : kv.requestIds()) {
      const Request* r = reqs[size_t(id - 1)].get();
      QVERIFY(!r->isFinished());
      const std::vector<int>& blocks = kv.blockIds(id);
      for (size_t j = 0; j < blocks.size(); ++j) {
        ++owners[size_t(blocks[j])];
        const KvBlock& b = kv.pool().block(blocks[j]);
        if (!b.hash) continue;  // hashed: must hold the owner's tokens at this position
        QCOMPARE(b.firstTokenPos, int(j) * kv.blockSize());
        QVERIFY(std::equal(b.tokenIds.begin(), b.tokenIds.end(), r->tokenIds.begin() + b.firstTokenPos));
      }
    }
    for (int i = 0; i < kv.numBlocks(); ++i) QCOMPARE(kv.pool().block(i).refCount, owners[size_t(i)]);
    KvUsage u = kv.usage();
    QCOMPARE(u.numUsed + u.numCachedFree + u.numFree, kv.numBlocks());
    QCOMPARE(u.numCachedFree + u.numFree, kv.pool().numFreeBlocks());
    KvUsage scanned;  // the pool's counters against every block's state
    for (int i = 0; i < kv.numBlocks(); ++i) {
      const KvBlock& b = kv.pool().block(i);
      QCOMPARE(b.inFreeQueue, b.refCount == 0);
      ++(b.refCount > 0 ? scanned.numUsed : b.hash ? scanned.numCachedFree : scanned.numFree);
    }
    QCOMPARE(u.numUsed, scanned.numUsed);
    QCOMPARE(u.numCachedFree, scanned.numCachedFree);
    QCOMPARE(u.numFree, scanned.numFree);
    for (const Request* r : sched.running()) QCOMPARE(r->state, RequestState::Running);
  }
};

void runSim(uint32_t seed, int numBlocks, BlockHashFn hashFn, int numEvents, bool speculate = false) {
  Sim sim(seed, numBlocks, std::move(hashFn));
  sim.speculate = speculate;
  sim.numSpeculativeTokens = speculate ? 3 : 0;
  for (int e = 0; e < numEvents; ++e) {
    const unsigned roll = sim.rng() % 100;
    if (roll < 25) sim.arrive();
    else if (roll < 30) sim.abortRandom();
    else if (roll < 33) sim.randomKnobs();
    else sim.step();
    if (QTest::currentTestFailed()) return;
  }
  for (int guard = 0; sim.sched.hasRequests(); ++guard) {  // drain
    QVERIFY2(guard < 100000, "the scheduler stopped making progress");
    sim.step();
    if (QTest::currentTestFailed()) return;
  }
  QCOMPARE(sim.sched.kv().usage().numUsed, 0);
  QVERIFY(sim.sched.kv().requestIds().empty());
  for (const auto& r : sim.reqs) {
    QVERIFY(r->isFinished());
    if (r->state == RequestState::Rejected) QVERIFY(!sim.rejected[r->id].empty());
  }
  QVERIFY(sim.numPrefixHitTokens > 0);
  QVERIFY(sim.numPreemptions > 0);
  QVERIFY(sim.numFailedSteps > 0);
  if (speculate) QVERIFY(sim.numAcceptedDrafts > 0 && sim.numRejectedDrafts > 0);
}

}  // namespace

class TestSchedulerInvariants : public QObject {
  Q_OBJECT

 private slots:
  void randomWorkloads_data() {
    QTest::addColumn<uint>("seed");
    QTest::addColumn<int>("numBlocks");
    for (uint seed : {1u, 2u, 3u, 4u}) {
      QTest::addRow("seed %u, 12 blocks", seed) << seed << 12;
      QTest::addRow("seed %u, 40 blocks", seed) << seed << 40;
    }
  }
  void randomWorkloads() {
    QFETCH(uint, seed);
    QFETCH(int, numBlocks);
    runSim(seed, numBlocks, {}, 20000);
  }

  void randomWorkloadsWithSpeculation_data() { randomWorkloads_data(); }
  void randomWorkloadsWithSpeculation() {
    QFETCH(uint, seed);
    QFETCH(int, numBlocks);
    runSim(seed, numBlocks, {}, 20000, true);
  }

  // A hash with 8 values: constant collisions, only token verification keeps hits right.
  void randomWorkloadsWithCollidingHashes() {
    runSim(7, 24, [](uint64_t parent, const int* t, int n) { return hashBlockTokens(parent, t, n) % 8; }, 6000);
  }
};

QTEST_GUILESS_MAIN(TestSchedulerInvariants)
#include "tst_scheduler_invariants.moc"
