#pragma once
// Per-request KV block books on top of the BlockPool: allocation of the slots a step
// needs, automatic prefix caching (lookup on admission, hashing of blocks as they fill),
// freeing on finish or preemption, usage statistics. Never touches tensors.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/kv/block_pool.h"

namespace lwb {

struct PrefixHit {
  std::vector<int> blockIds;     // cached blocks covering the prompt's head, in order
  std::vector<uint64_t> hashes;  // their chain hashes
  int numTokens = 0;             // blockIds.size() * blockSize
};

struct KvUsage {
  int numUsed = 0;        // ref count > 0
  int numCachedFree = 0;  // ref count 0, hash kept (evictable)
  int numFree = 0;        // ref count 0, no hash
};

class KvCacheManager {
 public:
  // `hashFn` replaces XXH3 (tests force collisions with it).
  KvCacheManager(int numBlocks, int blockSize, bool enablePrefixCaching, BlockHashFn hashFn = {});

  int blockSize() const { return blockSize_; }
  int numBlocks() const { return pool_.numBlocks(); }
  bool prefixCachingEnabled() const { return prefixCaching_; }
  // Off: no more lookups and no new hashes (blocks already cached stay until evicted).
  void setPrefixCaching(bool on) { prefixCaching_ = on; }
  int blocksFor(int numTokens) const { return (numTokens + blockSize_ - 1) / blockSize_; }

  // Longest chain of cached full blocks matching `tokens`' head; stops at the first
  // miss and covers at most tokens.size() − 1 tokens (the last one must be computed).
  PrefixHit findCachedPrefix(const std::vector<int>& tokens) const;
  // Makes request `id` hold blocks for `numTotalTokens` tokens, taking `hit` first when
  // the request holds nothing yet. Returns false and changes nothing when the free
  // queue is too short.
  bool allocateSlots(int64_t id, int numTotalTokens, const PrefixHit* hit = nullptr);
  // The first `numComputedTokens` of `tokens` are in the cache now: registers newly
  // full blocks in the prefix cache (parent-chained hashes).
  void cacheFullBlocks(int64_t id, const std::vector<int>& tokens, int numComputedTokens);
  // Releases the request's blocks, tail first, so its tail is evicted before its head.
  void free(int64_t id);

  const std::vector<int>& blockIds(int64_t id) const;
  int numComputedTokens(int64_t id) const;  // as last told by cacheFullBlocks
  bool holds(int64_t id) const { return reqs_.count(id) != 0; }
  std::vector<int64_t> requestIds() const;

  KvUsage usage() const;
  const BlockPool& pool() const { return pool_; }

 private:
  struct ReqBlocks {
    std::vector<int> blocks;
    std::vector<uint64_t> hashes;  // chain hashes of its full, registered blocks
    int numComputed = 0;
  };
  uint64_t hash(uint64_t parent, const int* tokens) const;

  BlockPool pool_;
  int blockSize_;
  bool prefixCaching_;
  BlockHashFn hashFn_;
  std::unordered_map<int64_t, ReqBlocks> reqs_;
};

}  // namespace lwb
