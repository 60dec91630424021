#pragma once
// Per-request KV block books on top of the BlockPool: allocation of the slots a step
// needs, automatic prefix caching (lookup on admission, hashing of blocks when they are
// allocated for tokens that fill them), freeing on finish or preemption, usage
// statistics. Never touches tensors.
//
// Registration at allocation (vLLM V1: KVCacheManager.allocate_slots → cache_blocks):
// a block is hashed as soon as the tokens scheduled this step fill it, before the
// forward pass writes it, so a request admitted later in the SAME step already hits
// it. That is sound because the executors write every row's K/V of a layer before any
// row's attention of that layer reads the cache (CPU: CpuExecutor::runLayer calls
// writeKvCache for all rows, then pagedAttention; CUDA: launchRopeCache for all rows,
// then the attention kernels, on one stream), and a hitting request always comes after
// its writer in the batch (admissions follow running requests, in allocation order).
// Such hashes are "unwritten" until cacheFullBlocks() confirms the tokens were computed;
// dropUnwrittenHashes() (a failed forward pass) and free() (preempted or failed before
// its forward pass) drop them, so no hash ever points at garbage.
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/kv/block_pool.h"
#include "engine/kv/prefix_history.h"
#include "engine/kv/prefix_miss.h"

namespace lwb {

struct PrefixHit {
  std::vector<int> blockIds;     // cached blocks covering the prompt's head, in order
  std::vector<uint64_t> hashes;  // their chain hashes
  int numTokens = 0;             // blockIds.size() * blockSize
};

// Blocks received from another instance (P/D disaggregation): the prefix's full blocks
// in order; `isNew` marks those taken from the free queue, whose data the caller must
// write now; the others were cached here already and are shared as a hit would.
struct KvImport {
  std::vector<int> blockIds;
  std::vector<bool> isNew;
  int numNew() const;
};

struct KvUsage {
  int numUsed = 0;        // ref count > 0
  int numCachedFree = 0;  // ref count 0, hash kept (evictable)
  int numFree = 0;        // ref count 0, no hash
};

class KvCacheManager {
 public:
  // `hashFn` replaces XXH3 (tests force collisions with it). Whether prefixes are looked
  // up and hashed is the caller's decision (enable_prefix_caching: the scheduler reads
  // it): it passes the tokens to hash, or none.
  KvCacheManager(int numBlocks, int blockSize, BlockHashFn hashFn = {});

  int blockSize() const { return blockSize_; }
  int numBlocks() const { return pool_.numBlocks(); }
  int blocksFor(int numTokens) const { return (numTokens + blockSize_ - 1) / blockSize_; }

  // Longest chain of cached full blocks matching `tokens`' head; stops at the first
  // miss and covers at most tokens.size() − 1 tokens (the last one must be computed).
  PrefixHit findCachedPrefix(const std::vector<int>& tokens) const;
  // Makes request `id` hold blocks for `numTotalTokens` tokens, taking `hit` first when
  // the request holds nothing yet. Returns false and changes nothing when the free
  // queue is too short. With `tokens` (the request's ids, at least numTotalTokens of
  // them: the prompt, or the decode token being computed) the blocks these tokens fill
  // are registered in the prefix cache at once, as unwritten (see the file comment).
  // `numFullSequenceTokens` > 0 is vLLM's admission gate (scheduler_reserve_full_isl):
  // also fail unless blocks for that many tokens (the whole current sequence) could be
  // allocated now, though only numTotalTokens' blocks are taken.
  // `numLookaheadTokens` (vLLM's num_lookahead_tokens): slots for that many speculative
  // draft tokens after numTotalTokens; never hashed (they may be rejected).
  bool allocateSlots(int64_t id, int numTotalTokens, const PrefixHit* hit = nullptr,
                     const std::vector<int>* tokens = nullptr, int numFullSequenceTokens = 0,
                     int numLookaheadTokens = 0);
  // Whether allocateSlots() with the same arguments would succeed now (it changes nothing).
  bool canAllocateSlots(int64_t id, int numTotalTokens, const PrefixHit* hit = nullptr,
                        int numFullSequenceTokens = 0, int numLookaheadTokens = 0) const;
  // Speculative rollback: frees the request's blocks past those `numTokens` tokens need
  // (lookahead slots of rejected drafts), tail first. Such blocks never carry a hash.
  void trimTo(int64_t id, int numTokens);
  // The first `numComputedTokens` tokens are in the cache now (the forward pass ran):
  // with `tokens` (the request's ids) registers full blocks not registered yet
  // (parent-chained hashes), and marks the request's registered blocks up to there as
  // written.
  void cacheFullBlocks(int64_t id, const std::vector<int>* tokens, int numComputedTokens);
  // The forward pass failed: drops, for every request, the hashes registered since its
  // last cacheFullBlocks(); their blocks' contents were never written. Returns how many.
  int dropUnwrittenHashes();
  // Blocks registered in the prefix cache whose contents are not written yet.
  int numUnwrittenHashes() const;
  // Releases the request's blocks, tail first, so its tail is evicted before its head.
  // Hashes it registered but never wrote are dropped first.
  void free(int64_t id);

  // P/D disaggregation: holds under `holdId` (an id no request uses) the first numBlocks
  // full blocks of `tokens`, registered under the same chain hashes as the producer's,
  // so the consumer's prefix lookup finds them on admission; free(holdId) lets them go.
  // Blocks cached here already are touched, the others taken from the free queue and
  // registered as written (the caller writes their data before the next step). Returns
  // nothing and changes nothing when the free queue is too short.
  std::optional<KvImport> importPrefix(int64_t holdId, const std::vector<int>& tokens, int numBlocks);

  const std::vector<int>& blockIds(int64_t id) const;
  int numComputedTokens(int64_t id) const;  // as last told by cacheFullBlocks
  bool holds(int64_t id) const { return reqs_.count(id) != 0; }
  std::vector<int64_t> requestIds() const;

  KvUsage usage() const;
  const BlockPool& pool() const { return pool_; }
  // The pool's KV events go to `log` (block_pool.h).
  void setEventLog(KvEventLog* log) { pool_.setEventLog(log); }

  // Miss accounting (prefix_miss.h): on by default. Off, explainMiss() can still tell
  // caching_off, partial_block, last_token and behind_miss apart, but every other
  // missed block reads as cold (nothing is remembered). `bench_prefix_miss` measures it.
  void setMissAccounting(bool on);
  bool missAccounting() const { return history_ != nullptr; }
  const PrefixHistory* history() const { return history_.get(); }
  // The ring's size: 2 × the pool's blocks, within [4096, 131072] entries.
  static int historyCapacityFor(int numBlocks);
  // Stamps evictions from now on (engine clock seconds).
  void setNow(double now) {
    if (history_) history_->setNow(now);
  }
  // Why the prompt's tokens (the first numPromptTokens of `tokens`) that `hit` does not
  // cover missed; call right after findCachedPrefix() (hit is its result; empty and
  // `cachingOn` false when enable_prefix_caching is off), before allocating.
  PrefixMiss explainMiss(const std::vector<int>& tokens, int numPromptTokens, const PrefixHit& hit,
                         bool cachingOn) const;

 private:
  struct ReqBlocks {
    std::vector<int> blocks;
    std::vector<uint64_t> hashes;  // chain hashes of its full blocks, registered or not
    int numWrittenHashes = 0;      // hashes[0, this) cover written (or hit) blocks
    int numComputed = 0;
  };
  uint64_t hash(uint64_t parent, const int* tokens) const;
  // What allocateSlots() would do: the hit it would take (a fresh request's only), the
  // new blocks it would take, and whether the free blocks suffice.
  struct SlotPlan {
    const PrefixHit* hit = nullptr;
    int numNew = 0;
    bool fits = false;
  };
  SlotPlan planSlots(int64_t id, int numTotalTokens, const PrefixHit* hit, int numFullSequenceTokens,
                     int numLookaheadTokens) const;
  // Hashes (and registers where free) r's blocks that the first numTokens tokens fill.
  void registerFullBlocks(ReqBlocks& r, const std::vector<int>& tokens, int numTokens);
  int dropUnwritten(ReqBlocks& r);

  BlockPool pool_;
  int blockSize_;
  BlockHashFn hashFn_;
  std::unordered_map<int64_t, ReqBlocks> reqs_;
  std::unique_ptr<PrefixHistory> history_;
};

}  // namespace lwb
