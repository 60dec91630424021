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
    pool.freeBlocks({2, 0});  // freed later = handed out later
    QCOMPARE(pool.freeQueueOrder(), (std::vector<int>{3, 2, 0}));
    QCOMPARE(pool.getNewBlocks(2), (std::vector<int>{3, 2}));
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
    pool.freeBlocks({b});
    QCOMPARE(pool.getCachedBlock(h, tokens, 4), b);  // ref 0, still findable
    pool.touch(b);                                     // a hit takes it out of the free queue
    QCOMPARE(pool.numFreeBlocks(), 1);
    QCOMPARE(pool.block(b).refCount, 1);
    pool.freeBlocks({b});
    // The other (never used) block goes first, then b is evicted on reuse.
    std::vector<int> got = pool.getNewBlocks(2);
    QCOMPARE(got.back(), b);
    QVERIFY(!pool.block(b).hash.has_value());
    QCOMPARE(pool.getCachedBlock(h, tokens, 4), -1);
    QCOMPARE(pool.numEvictions(), int64_t(1));
  }

  void hashChainsDependOnTheParent() {
    const int tokens[2] = {1, 2};
    QVERIFY(hashBlockTokens(0, tokens, 2) != hashBlockTokens(42, tokens, 2));
    QCOMPARE(hashBlockTokens(7, tokens, 2), hashBlockTokens(7, tokens, 2));
    const int other[2] = {2, 1};
    QVERIFY(hashBlockTokens(0, tokens, 2) != hashBlockTokens(0, other, 2));
  }

  void collisionIsAMissNotAWrongHit() {
    BlockPool pool(3);
    const int a[2] = {1, 2}, b[2] = {3, 4};
    const uint64_t forced = 99;  // both blocks "hash" to the same value
    int blockA = pool.getNewBlocks(1)[0];
    pool.cacheBlock(blockA, forced, a, 2, 0);
    int blockB = pool.getNewBlocks(1)[0];
    pool.cacheBlock(blockB, forced, b, 2, 0);  // collision: B stays unhashed
    QVERIFY(!pool.block(blockB).hash.has_value());
    QCOMPARE(pool.getCachedBlock(forced, a, 2), blockA);
    QCOMPARE(pool.getCachedBlock(forced, b, 2), -1);
  }
};

QTEST_GUILESS_MAIN(TestBlockPool)
#include "tst_block_pool.moc"
