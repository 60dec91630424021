// KvCacheManager: prefix lookup (longest chain, stops at the first miss, at least one
// token left to compute), allocation all-or-nothing, tail-first freeing, statistics;
// registration at allocation (same-step sharing) and dropping of unwritten hashes.
#include <QtTest>

#include <numeric>

#include "engine/kv/kv_cache_manager.h"

using namespace lwb;

namespace {

std::vector<int> seq(int n, int start = 10) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

// Allocates and "computes" all of `tokens` for request `id`.
void fill(KvCacheManager& kv, int64_t id, const std::vector<int>& tokens) {
  PrefixHit hit = kv.findCachedPrefix(tokens);
  QVERIFY(kv.allocateSlots(id, int(tokens.size()), &hit));
  kv.cacheFullBlocks(id, &tokens, int(tokens.size()));
}

// A `prefixLen`-token head shared by all, then a tail of `tailLen` tokens unique to `tag`.
std::vector<int> sharedHead(int prefixLen, int tailLen, int tag) {
  std::vector<int> t = seq(prefixLen);
  for (int i = 0; i < tailLen; ++i) t.push_back(1000 * tag + i);
  return t;
}

// Looks up and allocates `numTokens` of `tokens` with registration at allocation, as
// the scheduler does when it admits a request; nothing is "computed" yet.
PrefixHit admit(KvCacheManager& kv, int64_t id, const std::vector<int>& tokens, int numTokens) {
  PrefixHit hit = kv.findCachedPrefix(tokens);
  [&] { QVERIFY(kv.allocateSlots(id, hit.numTokens + numTokens, &hit, &tokens)); }();
  return hit;
}

}  // namespace

class TestKvCacheManager : public QObject {
  Q_OBJECT

 private slots:
  // P/D: imported blocks are findable under the producer's hashes; blocks cached here
  // already are shared, not taken again; no room changes nothing; free lets them go.
  void importedPrefixIsAHitAndReusesCachedBlocks() {
    KvCacheManager kv(6, 4);
    fill(kv, 1, seq(8));  // blocks of tokens 0..7 cached here
    kv.free(1);
    const std::vector<int> prompt = seq(17);
    const std::optional<KvImport> got = kv.importPrefix(-7, prompt, 4);
    QVERIFY(got.has_value());
    QCOMPARE(got->isNew, (std::vector<bool>{false, false, true, true}));
    QCOMPARE(got->numNew(), 2);
    const PrefixHit hit = kv.findCachedPrefix(prompt);
    QCOMPARE(hit.numTokens, 16);
    QCOMPARE(hit.blockIds, got->blockIds);
    QCOMPARE(kv.pool().numFreeBlocks(), 2);
    QVERIFY(!kv.importPrefix(-8, sharedHead(0, 16, 3), 4).has_value());  // 4 new blocks, 2 free
    QCOMPARE(kv.pool().numFreeBlocks(), 2);
    QVERIFY(!kv.holds(-8));
    kv.free(-7);
    QCOMPARE(kv.pool().numFreeBlocks(), 6);
    QCOMPARE(kv.findCachedPrefix(prompt).numTokens, 16);  // still cached, now free
  }

  void sharedPrefixHitsWholeBlocks() {
    KvCacheManager kv(16, 4);
    fill(kv, 1, seq(10));  // 2 full blocks hashed, 1 partial
    std::vector<int> other = seq(8);
    other.push_back(500);
    other.push_back(501);
    other.push_back(502);
    PrefixHit hit = kv.findCachedPrefix(other);
    QCOMPARE(hit.numTokens, 8);
    QCOMPARE(hit.blockIds, (std::vector<int>(kv.blockIds(1).begin(), kv.blockIds(1).begin() + 2)));
    QVERIFY(kv.allocateSlots(2, 11, &hit));
    QCOMPARE(kv.pool().block(hit.blockIds[0]).refCount, 2);
    QCOMPARE(kv.numComputedTokens(2), 8);
  }

  void stopsAtTheFirstMiss() {
    KvCacheManager kv(16, 4);
    fill(kv, 1, seq(12));
    std::vector<int> t = seq(13);
    t[5] = 999;  // second block differs: later blocks cannot hit either
    QCOMPARE(kv.findCachedPrefix(t).numTokens, 4);
  }

  void leavesTheLastTokenToCompute() {
    KvCacheManager kv(16, 4);
    fill(kv, 1, seq(8));
    QCOMPARE(kv.findCachedPrefix(seq(8)).numTokens, 4);  // a multiple of block_size: last block recomputed
    QCOMPARE(kv.findCachedPrefix(seq(9)).numTokens, 8);
    QCOMPARE(kv.findCachedPrefix(seq(1)).numTokens, 0);
  }

  // Prefix caching off (the scheduler's decision): it passes no tokens, so nothing is hashed.
  void withoutTokensNothingIsHashed() {
    KvCacheManager kv(16, 4);
    QVERIFY(kv.allocateSlots(1, 12));
    kv.cacheFullBlocks(1, nullptr, 12);
    QCOMPARE(kv.numComputedTokens(1), 12);
    QCOMPARE(kv.findCachedPrefix(seq(13)).numTokens, 0);
    kv.free(1);
    QCOMPARE(kv.usage().numCachedFree, 0);
    QCOMPARE(kv.usage().numFree, 16);
  }

  void allocationIsAllOrNothing() {
    KvCacheManager kv(4, 4);
    QVERIFY(kv.allocateSlots(1, 12));
    QVERIFY(!kv.allocateSlots(2, 8));  // needs 2, 1 free
    QVERIFY(!kv.holds(2));
    QCOMPARE(kv.usage().numUsed, 3);
    QVERIFY(kv.allocateSlots(1, 13));  // grows by one block
    QCOMPARE(int(kv.blockIds(1).size()), 4);
    QVERIFY(kv.allocateSlots(1, 16));  // no new block needed
    QVERIFY(!kv.allocateSlots(1, 17));
  }

  void cachedFreeHitsCountAgainstTheFreeQueue() {
    KvCacheManager kv(4, 4);
    fill(kv, 1, seq(8));
    kv.free(1);
    QCOMPARE(kv.usage().numCachedFree, 2);
    PrefixHit hit = kv.findCachedPrefix(seq(9));
    QCOMPARE(hit.numTokens, 8);
    // 3 blocks needed: 2 hits (taken out of the free queue) + 1 new; 4 free in all.
    QVERIFY(kv.canAllocateSlots(2, 9, &hit));
    QVERIFY(!kv.canAllocateSlots(2, 9, &hit, 17));  // the full sequence would not fit
    QCOMPARE(kv.usage().numCachedFree, 2);          // asking took nothing
    QVERIFY(kv.allocateSlots(2, 9, &hit));
    QCOMPARE(kv.usage().numUsed, 3);
    QVERIFY(!kv.canAllocateSlots(3, 8));
    QVERIFY(!kv.allocateSlots(3, 8));
  }

  void freesTailFirstSoTheHeadSurvivesLonger() {
    KvCacheManager kv(3, 4);
    fill(kv, 1, seq(12));
    const std::vector<int> blocks = kv.blockIds(1);
    kv.free(1);
    QCOMPARE(kv.pool().freeQueueOrder(), (std::vector<int>{blocks[2], blocks[1], blocks[0]}));
    QVERIFY(kv.allocateSlots(2, 4));  // evicts the tail block
    QCOMPARE(kv.findCachedPrefix(seq(13)).numTokens, 8);
  }

  void forcedCollisionIsVerifiedByTokens() {
    // Every block hashes to 7: only token verification tells blocks apart.
    KvCacheManager kv(8, 2, [](uint64_t, const int*, int) { return uint64_t(7); });
    fill(kv, 1, {1, 2, 3});
    QCOMPARE(kv.findCachedPrefix({1, 2, 9}).numTokens, 2);
    QCOMPARE(kv.findCachedPrefix({5, 6, 9}).numTokens, 0);  // same hash, other tokens: miss
  }

  void generatedTokensGetHashedAsBlocksFill() {
    KvCacheManager kv(8, 4);
    std::vector<int> t = seq(3);
    QVERIFY(kv.allocateSlots(1, 3));
    kv.cacheFullBlocks(1, &t, 3);
    for (int tok : {50, 51, 52}) {  // decode: one token per step
      t.push_back(tok);
      QVERIFY(kv.allocateSlots(1, int(t.size())));
      kv.cacheFullBlocks(1, &t, int(t.size()));
    }
    std::vector<int> probe(t.begin(), t.begin() + 4);
    probe.push_back(1);
    QCOMPARE(kv.findCachedPrefix(probe).numTokens, 4);
  }
  // vLLM V1: blocks are registered when allocated for the tokens that fill them, so
  // prompts admitted in the same step share the first one's blocks before it ran.
  void sameStepAdmissionsHitTheFirstOnesBlocks() {
    KvCacheManager kv(64, 16);
    std::vector<std::vector<int>> prompts;
    for (int p = 0; p < 4; ++p) prompts.push_back(sharedHead(64, 5 + 3 * p, p + 1));
    admit(kv, 1, prompts[0], int(prompts[0].size()));
    QCOMPARE(kv.numUnwrittenHashes(), 4);  // the 4 shared blocks; the tail block is partial
    const std::vector<int> head(kv.blockIds(1).begin(), kv.blockIds(1).begin() + 4);
    for (int p = 1; p < 4; ++p) {
      PrefixHit hit = admit(kv, p + 1, prompts[size_t(p)], int(prompts[size_t(p)].size()) - 64);
      QCOMPARE(hit.numTokens, 64);
      QCOMPARE(std::vector<int>(kv.blockIds(p + 1).begin(), kv.blockIds(p + 1).begin() + 4), head);
    }
    for (int b : head) QCOMPARE(kv.pool().block(b).refCount, 4);
    QCOMPARE(kv.numUnwrittenHashes(), 4);  // hitters do not own the registration
    for (int p = 0; p < 4; ++p) kv.cacheFullBlocks(p + 1, &prompts[size_t(p)], int(prompts[size_t(p)].size()));
    QCOMPARE(kv.numUnwrittenHashes(), 0);
  }

  void aChunkRegistersOnlyTheBlocksItFills() {
    KvCacheManager kv(64, 16);
    const std::vector<int> a = sharedHead(64, 10, 1);
    admit(kv, 1, a, 40);  // blocks 0, 1 full; block 2 holds 8 of 16 this step
    QCOMPARE(kv.numUnwrittenHashes(), 2);
    QCOMPARE(kv.findCachedPrefix(sharedHead(64, 3, 2)).numTokens, 32);
    kv.cacheFullBlocks(1, &a, 40);
    QVERIFY(kv.allocateSlots(1, 74, nullptr, &a));  // the next chunk: the rest of the prompt
    QCOMPARE(kv.numUnwrittenHashes(), 2);
    QCOMPARE(kv.findCachedPrefix(sharedHead(64, 3, 2)).numTokens, 64);
  }

  void decodeRegistersTheBlockItsTokenFills() {
    KvCacheManager kv(8, 4);
    std::vector<int> t = seq(7);
    admit(kv, 1, t, 7);
    kv.cacheFullBlocks(1, &t, 7);
    t.push_back(50);  // sampled; computed in the next step, which fills block 1
    QVERIFY(kv.allocateSlots(1, 8, nullptr, &t));
    QCOMPARE(kv.numUnwrittenHashes(), 1);
    std::vector<int> probe = t;
    probe.push_back(1);
    QCOMPARE(kv.findCachedPrefix(probe).numTokens, 8);
  }

  // A failed forward pass: hashes registered for it go, hashes of written blocks stay,
  // and the blocks can be registered again once really computed.
  void droppingUnwrittenHashesKeepsWrittenOnes() {
    KvCacheManager kv(16, 4);
    const std::vector<int> t = seq(17);
    admit(kv, 1, t, 8);
    kv.cacheFullBlocks(1, &t, 8);                    // blocks 0, 1 written
    QVERIFY(kv.allocateSlots(1, 16, nullptr, &t));  // blocks 2, 3 registered, unwritten
    PrefixHit hit = admit(kv, 2, t, 1);             // same step: hits all four
    QCOMPARE(hit.numTokens, 16);
    QCOMPARE(kv.dropUnwrittenHashes(), 2);
    QCOMPARE(kv.numUnwrittenHashes(), 0);
    QCOMPARE(kv.findCachedPrefix(t).numTokens, 8);
    for (int i = 2; i < 4; ++i) QVERIFY(!kv.pool().block(kv.blockIds(1)[size_t(i)]).hash);
    kv.free(2);
    kv.cacheFullBlocks(1, &t, 16);  // computed after all (a retry): registered again
    QCOMPARE(kv.findCachedPrefix(t).numTokens, 16);
  }

  // Preempted (or failed) before its forward pass ran: nothing it registered survives.
  void freeDropsUnwrittenHashes() {
    KvCacheManager kv(16, 4);
    const std::vector<int> t = seq(13);
    admit(kv, 1, t, 13);
    kv.free(1);
    QCOMPARE(kv.usage().numCachedFree, 0);
    QCOMPARE(kv.findCachedPrefix(t).numTokens, 0);
    admit(kv, 2, t, 13);
    kv.cacheFullBlocks(2, &t, 13);
    kv.free(2);
    QCOMPARE(kv.usage().numCachedFree, 3);
    QCOMPARE(kv.findCachedPrefix(t).numTokens, 12);
  }
};

QTEST_GUILESS_MAIN(TestKvCacheManager)
#include "tst_kv_cache_manager.moc"
