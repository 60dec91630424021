// BlockPool: LRU free queue, ref counts, the prefix cache's hash map, eviction and
// token verification on a hit.
#include <QtTest>

#include "engine/kv/block_pool.h"

using namespace lwb;

class TestBlockPool : public QObject {
  Q_OBJECT

 private slots:
  void handsOutInLruOrder() {
    BlockPool pool(4);
    QCOMPARE(pool.freeQueueOrder(), (std::vector<int>{0, 1, 2, 3}));
    std::vector<int> a = pool.getNewBlocks(3);
    QCOMPARE(a, (std::vector<int>{0, 1, 2}));
    QCOMPARE(pool.numFreeBlocks(), 1);
    const int t0[2] = {1, 2}, t2[2] = {3, 4};
    pool.cacheBlock(0, hashBlockTokens(0, t0, 2), t0, 2, 0);
    pool.cacheBlock(2, hashBlockTokens(0, t2, 2), t2, 2, 0);
    pool.freeBlocks({2, 0});  // hashed: freed later = handed out (evicted) later
    QCOMPARE(pool.freeQueueOrder(), (std::vector<int>{3, 2, 0}));
    QCOMPARE(pool.getNewBlocks(2), (std::vector<int>{3, 2}));
  }

  // vLLM: a freed block without a hash has nothing worth keeping, so it goes to the
  // FRONT of the free queue and is reused before any cached block is evicted; among
  // themselves the unhashed blocks keep the order they were given in.
  void unhashedBlocksAreReusedFirst() {
    BlockPool pool(6);
    std::vector<int> owned = pool.getNewBlocks(5);  // 0..4; 5 stays free
    const int t[2] = {9, 9};
    pool.cacheBlock(1, hashBlockTokens(0, t, 2), t, 2, 0);
    pool.cacheBlock(3, hashBlockTokens(1, t, 2), t, 2, 2);
    pool.freeBlocks({4, 3, 2, 1, 0});  // a request's blocks, tail first
    QCOMPARE(pool.freeQueueOrder(), (std::vector<int>{4, 2, 0, 5, 3, 1}));
    QCOMPARE(pool.getNewBlocks(4), (std::vector<int>{4, 2, 0, 5}));
    QVERIFY(pool.block(1).hash && pool.block(3).hash);  // both cached blocks survived
    QCOMPARE(pool.getNewBlocks(1), (std::vector<int>{3}));
    QVERIFY(!pool.block(3).hash && pool.block(1).hash);  // the LRU one was evicted
  }

  void refCountsKeepSharedBlocksOwned() {
    BlockPool pool(2);
    int b = pool.getNewBlocks(1)[0];
    pool.touch(b);
    QCOMPARE(pool.block(b).refCount, 2);
    pool.freeBlocks({b});
    QCOMPARE(pool.block(b).refCount, 1);
    QCOMPARE(pool.numFreeBlocks(), 1);
    pool.freeBlocks({b});
    QCOMPARE(pool.numFreeBlocks(), 2);
    QVERIFY_THROWS_EXCEPTION(std::exception, pool.freeBlocks({b}));
  }

  void cachedFreeBlockStaysFindableUntilReused() {
    BlockPool pool(2);
    const int tokens[4] = {5, 6, 7, 8};
    int b = pool.getNewBlocks(1)[0];
    const uint64_t h = hashBlockTokens(0, tokens, 4);
    pool.cacheBlock(b, h, tokens, 4, 0);
    QCOMPARE(pool.numCachedFreeBlocks(), 0);  // hashed but owned
    pool.freeBlocks({b});
    QCOMPARE(pool.numCachedFreeBlocks(), 1);
    QCOMPARE(pool.getCachedBlock(h, tokens, 4), b);  // ref 0, still findable
    pool.touch(b);                                     // a hit takes it out of the free queue
    QCOMPARE(pool.numFreeBlocks(), 1);
    QCOMPARE(pool.numCachedFreeBlocks(), 0);
    QCOMPARE(pool.block(b).refCount, 1);
    pool.freeBlocks({b});
    QCOMPARE(pool.numCachedFreeBlocks(), 1);
    // The other (never used) block goes first, then b is evicted on reuse.
    std::vector<int> got = pool.getNewBlocks(2);
    QCOMPARE(got.back(), b);
    QVERIFY(!pool.block(b).hash.has_value());
    QCOMPARE(pool.numCachedFreeBlocks(), 0);
    QCOMPARE(pool.getCachedBlock(h, tokens, 4), -1);
    pool.cacheBlock(b, h, tokens, 4, 0);
    pool.freeBlocks({b});
    pool.uncacheBlock(b);  // a free block losing its hash (its contents never written)
    QCOMPARE(pool.numCachedFreeBlocks(), 0);
    QCOMPARE(pool.numFreeBlocks(), 1);
  }

  void hashChainsDependOnTheParent() {
    const int tokens[2] = {1, 2};
    QVERIFY(hashBlockTokens(0, tokens, 2) != hashBlockTokens(42, tokens, 2));
    QCOMPARE(hashBlockTokens(7, tokens, 2), hashBlockTokens(7, tokens, 2));
    const int other[2] = {2, 1};
    QVERIFY(hashBlockTokens(0, tokens, 2) != hashBlockTokens(0, other, 2));
  }

  // Two blocks under one hash with different tokens (a forced collision): both stay
  // registered, and each lookup finds the one whose tokens match, never the other.
  void collisionIsAMissNotAWrongHit() {
    BlockPool pool(3);
    const int a[2] = {1, 2}, b[2] = {3, 4}, c[2] = {5, 6};
    const uint64_t forced = 99;  // every block "hashes" to the same value
    int blockA = pool.getNewBlocks(1)[0];
    QVERIFY(pool.cacheBlock(blockA, forced, a, 2, 0));
    int blockB = pool.getNewBlocks(1)[0];
    QVERIFY(pool.cacheBlock(blockB, forced, b, 2, 0));
    QCOMPARE(pool.numBlocksWithHash(forced), 2);
    QCOMPARE(pool.getCachedBlock(forced, a, 2), blockA);
    QCOMPARE(pool.getCachedBlock(forced, b, 2), blockB);
    QCOMPARE(pool.getCachedBlock(forced, c, 2), -1);
    QVERIFY(!pool.cacheBlock(blockA, 7, a, 2, 0));  // a block keeps its first hash
  }

  // vLLM keeps several blocks per hash (two requests computed the same block before
  // either registered it); a hit takes the oldest copy, and when that one is evicted
  // the other still hits.
  void duplicateHashesAreKeptAndAnyCopyHits() {
    BlockPool pool(3);
    const int t[2] = {4, 2};
    const uint64_t h = hashBlockTokens(0, t, 2);
    const std::vector<int> ab = pool.getNewBlocks(2);  // 0 and 1
    QVERIFY(pool.cacheBlock(ab[0], h, t, 2, 0));
    QVERIFY(pool.cacheBlock(ab[1], h, t, 2, 0));
    QCOMPARE(pool.numBlocksWithHash(h), 2);
    QCOMPARE(pool.getCachedBlock(h, t, 2), ab[0]);
    pool.freeBlocks({ab[0]});
    pool.freeBlocks({ab[1]});
    QCOMPARE(pool.getNewBlocks(2), (std::vector<int>{2, 0}));  // block 0's copy evicted
    QCOMPARE(pool.numBlocksWithHash(h), 1);
    QCOMPARE(pool.getCachedBlock(h, t, 2), ab[1]);
  }
};

QTEST_GUILESS_MAIN(TestBlockPool)
#include "tst_block_pool.moc"
