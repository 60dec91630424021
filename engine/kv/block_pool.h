#pragma once
// A fixed set of KV blocks with ref counts, an LRU free queue and the prefix cache
// (hash of a FULL block → block). Keeps books only; the executor owns the memory.
//
// Invariants: a block is in the free queue iff its ref count is 0. A free block that
// still has a hash is "cached-free": findable by getCachedBlock() until the free queue
// hands it out again (then its hash is dropped = evicted). As vLLM V1: freed blocks
// without a hash go to the FRONT of the queue (nothing to lose, reused first), hashed
// ones to the back (evicted last, least recently freed first = LRU). Several blocks may
// carry the same hash (vLLM keeps duplicates, e.g. two requests that computed the same
// prefix before either registered it); a hit may use any copy whose tokens match.
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/kv/kv_events.h"
#include "engine/kv/prefix_history.h"

namespace lwb {

struct KvBlock {
  int id = 0;
  int refCount = 0;
  std::optional<uint64_t> hash;  // set once the block is full and registered
  std::vector<int> tokenIds;     // its tokens when hashed (verification on hit)
  int firstTokenPos = 0;         // position of its first token, when hashed
  std::optional<uint64_t> parentHash;  // the chain's previous block, when hashed (none: first block)
  int prevFree = -1, nextFree = -1;  // free-queue links (-1 = none)
  bool inFreeQueue = false;
};

// hash(parent hash, tokens of one full block); parent is 0 for the first block.
using BlockHashFn = std::function<uint64_t(uint64_t parentHash, const int* tokens, int numTokens)>;
uint64_t hashBlockTokens(uint64_t parentHash, const int* tokens, int numTokens);  // XXH3_64bits

class BlockPool {
 public:
  explicit BlockPool(int numBlocks);

  int numBlocks() const { return int(blocks_.size()); }
  int numFreeBlocks() const { return numFree_; }  // ref count 0, cached or not
  int numCachedFreeBlocks() const { return numCachedFree_; }  // ref count 0 and a hash
  const KvBlock& block(int id) const { return blocks_[size_t(id)]; }

  // Takes n blocks from the front of the free queue (evicting their hashes), ref 1 each.
  // Precondition: n <= numFreeBlocks().
  std::vector<int> getNewBlocks(int n);
  // A prefix-cache hit: ref++ (and out of the free queue when it was cached-free).
  void touch(int id);
  // ref--; `ids` in eviction order (first = evict first). Blocks reaching 0 go to the
  // free queue: unhashed ones to its front, keeping their order among themselves;
  // hashed ones to its tail, in the order given.
  void freeBlocks(const std::vector<int>& ids);

  // The first-registered cached block for `hash` whose tokens equal `tokens`, or -1 (a
  // hash collision with different tokens is a miss, never a wrong hit).
  int getCachedBlock(uint64_t hash, const int* tokens, int numTokens) const;
  // Registers an owned block under `hash` (its tokens are final), next to any other
  // block with that hash. No-op, returning false, when the block already has a hash.
  bool cacheBlock(int id, uint64_t hash, const int* tokens, int numTokens, int firstTokenPos,
                  std::optional<uint64_t> parentHash = std::nullopt);
  // How many blocks carry `hash` (duplicates included); for tests and the block map.
  int numBlocksWithHash(uint64_t hash) const;
  // Drops block `id`'s hash: its contents were never written.
  void uncacheBlock(int id);

  // KV events (kv_events.h) go to `log` from now on (nullptr: nowhere). The log outlives
  // the pool (the engine rebuilds pools).
  void setEventLog(KvEventLog* log) { eventLog_ = log; }
  // Registrations and evictions go to `history` from now on (nullptr: nowhere); it is
  // the KvCacheManager's and outlives the pool.
  void setHistory(PrefixHistory* history) { history_ = history; }
  // One BlockStored per block cached now: a reader that starts late learns the state.
  void announceCachedBlocks() const;

  std::vector<int> freeQueueOrder() const;  // front (next handed out) first; for tests

 private:
  void pushBack(int id);
  void pushFront(int id);
  void unlink(int id);
  void evict(KvBlock& b);

  std::vector<KvBlock> blocks_;
  int head_ = -1, tail_ = -1, numFree_ = 0;
  int numCachedFree_ = 0;  // kept as blocks enter and leave the queue and gain and lose hashes
  std::unordered_map<uint64_t, std::vector<int>> cached_;  // hash → block ids, oldest first
  KvEventLog* eventLog_ = nullptr;
  PrefixHistory* history_ = nullptr;
};

}  // namespace lwb
