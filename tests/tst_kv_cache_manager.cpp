// KvCacheManager: prefix lookup (longest chain, stops at the first miss, at least one
// token left to compute), allocation all-or-nothing, tail-first freeing, statistics.
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
  kv.cacheFullBlocks(id, tokens, int(tokens.size()));
}

}  // namespace

class TestKvCacheManager : public QObject {
  Q_OBJECT

 private slots:
  void sharedPrefixHitsWholeBlocks() {
    KvCacheManager kv(16, 4, true);
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
    KvCacheManager kv(16, 4, true);
    fill(kv, 1, seq(12));
    std::vector<int> t = seq(13);
    t[5] = 999;  // second block differs: later blocks cannot hit either
    QCOMPARE(kv.findCachedPrefix(t).numTokens, 4);
  }

  void leavesTheLastTokenToCompute() {
    KvCacheManager kv(16, 4, true);
    fill(kv, 1, seq(8));
    QCOMPARE(kv.findCachedPrefix(seq(8)).numTokens, 4);  // a multiple of block_size: last block recomputed
    QCOMPARE(kv.findCachedPrefix(seq(9)).numTokens, 8);
    QCOMPARE(kv.findCachedPrefix(seq(1)).numTokens, 0);
  }

  void cachingOffNeitherLooksUpNorHashes() {
    KvCacheManager kv(16, 4, false);
    fill(kv, 1, seq(12));
    QCOMPARE(kv.findCachedPrefix(seq(13)).numTokens, 0);
    kv.free(1);
    QCOMPARE(kv.usage().numCachedFree, 0);
    QCOMPARE(kv.usage().numFree, 16);
  }

  void allocationIsAllOrNothing() {
    KvCacheManager kv(4, 4, true);
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
    KvCacheManager kv(4, 4, true);
    fill(kv, 1, seq(8));
    kv.free(1);
    QCOMPARE(kv.usage().numCachedFree, 2);
    PrefixHit hit = kv.findCachedPrefix(seq(9));
    QCOMPARE(hit.numTokens, 8);
    // 3 blocks needed: 2 hits (taken out of the free queue) + 1 new; 4 free in all.
    QVERIFY(kv.allocateSlots(2, 9, &hit));
    QCOMPARE(kv.usage().numUsed, 3);
    QVERIFY(!kv.allocateSlots(3, 8));
  }

  void freesTailFirstSoTheHeadSurvivesLonger() {
    KvCacheManager kv(3, 4, true);
    fill(kv, 1, seq(12));
    const std::vector<int> blocks = kv.blockIds(1);
    kv.free(1);
    QCOMPARE(kv.pool().freeQueueOrder(), (std::vector<int>{blocks[2], blocks[1], blocks[0]}));
    QVERIFY(kv.allocateSlots(2, 4));  // evicts the tail block
    QCOMPARE(kv.findCachedPrefix(seq(13)).numTokens, 8);
  }

  void forcedCollisionIsVerifiedByTokens() {
    // Every block hashes to 7: only token verification tells blocks apart.
    KvCacheManager kv(8, 2, true, [](uint64_t, const int*, int) { return uint64_t(7); });
    fill(kv, 1, {1, 2, 3});
    QCOMPARE(kv.findCachedPrefix({1, 2, 9}).numTokens, 2);
    QCOMPARE(kv.findCachedPrefix({5, 6, 9}).numTokens, 0);  // same hash, other tokens: miss
  }

  void generatedTokensGetHashedAsBlocksFill() {
    KvCacheManager kv(8, 4, true);
    std::vector<int> t = seq(3);
    QVERIFY(kv.allocateSlots(1, 3));
    kv.cacheFullBlocks(1, t, 3);
    for (int tok : {50, 51, 52}) {  // decode: one token per step
      t.push_back(tok);
      QVERIFY(kv.allocateSlots(1, int(t.size())));
      kv.cacheFullBlocks(1, t, int(t.size()));
    }
    std::vector<int> probe(t.begin(), t.begin() + 4);
    probe.push_back(1);
    QCOMPARE(kv.findCachedPrefix(probe).numTokens, 4);
  }
};

QTEST_GUILESS_MAIN(TestKvCacheManager)
#include "tst_kv_cache_manager.moc"
