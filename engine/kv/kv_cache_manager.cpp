#include "engine/kv/kv_cache_manager.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/config/knobs.h"

namespace lwb {

KvCacheManager::KvCacheManager(int numBlocks, int blockSize, BlockHashFn hashFn)
    : pool_(numBlocks), blockSize_(blockSize), hashFn_(std::move(hashFn)) {
  check(blockSize >= 1, std::string(knob::kBlockSize) + ": " + std::to_string(blockSize) + "; expected at least 1");
  setMissAccounting(true);
}

int KvCacheManager::historyCapacityFor(int numBlocks) { return std::clamp(2 * numBlocks, 4096, 131072); }

void KvCacheManager::setMissAccounting(bool on) {
  if (on == missAccounting()) return;
  history_ = on ? std::make_unique<PrefixHistory>(historyCapacityFor(numBlocks()), blockSize_) : nullptr;
  pool_.setHistory(history_.get());
}

uint64_t KvCacheManager::hash(uint64_t parent, const int* tokens) const {
  return hashFn_ ? hashFn_(parent, tokens, blockSize_) : hashBlockTokens(parent, tokens, blockSize_);
}

PrefixHit KvCacheManager::findCachedPrefix(const std::vector<int>& tokens) const {
  PrefixHit hit;
  if (tokens.empty()) return hit;
  const int maxBlocks = (int(tokens.size()) - 1) / blockSize_;
  uint64_t parent = 0;
  for (int i = 0; i < maxBlocks; ++i) {
    const int* t = tokens.data() + size_t(i) * size_t(blockSize_);
    uint64_t h = hash(parent, t);
    int id = pool_.getCachedBlock(h, t, blockSize_);
    if (id < 0) break;
    hit.blockIds.push_back(id);
    hit.hashes.push_back(h);
    parent = h;
  }
  hit.numTokens = int(hit.blockIds.size()) * blockSize_;
  return hit;
}

namespace {
constexpr int kNumDivergedIds = 6;  // token ids kept from each side of a divergence

std::vector<int> idsFrom(const int* begin, const int* end) {
  return {begin, begin + std::min<long>(end - begin, kNumDivergedIds)};
}
}  // namespace

// Walks the prompt's full blocks past the hit, chaining hashes as findCachedPrefix does;
// a block is classified by the first reason that applies (prefix_miss.h). Once a block is
// unseen, every later block's chain hash is unseen too (it includes the parent's).
PrefixMiss KvCacheManager::explainMiss(const std::vector<int>& tokens, int numPromptTokens, const PrefixHit& hit,
                                       bool cachingOn) const {
  PrefixMiss m;
  m.accounted = true;
  const int n = std::min(numPromptTokens, int(tokens.size()));
  if (!cachingOn) {
    m[PrefixMissReason::CachingOff] = n;
    return m;
  }
  m[PrefixMissReason::PartialBlock] = n % blockSize_;
  const int numFull = n / blockSize_;
  const int lastTokenBlock = n % blockSize_ == 0 ? numFull - 1 : -1;
  const int numHit = int(hit.blockIds.size());
  std::optional<uint64_t> parent = numHit > 0 ? std::optional(hit.hashes.back()) : std::nullopt;
  bool unseenFound = false;
  for (int j = numHit; j < numFull; ++j) {
    const int* t = tokens.data() + size_t(j) * size_t(blockSize_);
    const uint64_t h = hash(parent.value_or(0), t);
    const bool cachedNow = pool_.getCachedBlock(h, t, blockSize_) >= 0;
    const PrefixHistory::Entry* e = history_ && !unseenFound ? history_->find(h) : nullptr;
    PrefixMissReason reason = PrefixMissReason::Cold;
    if (cachedNow) {
      reason = j == lastTokenBlock && j == numHit ? PrefixMissReason::LastToken : PrefixMissReason::BehindMiss;
    } else if (e && e->evicted) {
      reason = PrefixMissReason::Evicted;
      if (m.evictedTime < 0) m.evictedTime = e->evictedTime;
      if (m.evictedBy.size() < 4 && std::find(m.evictedBy.begin(), m.evictedBy.end(), e->evictedBy) == m.evictedBy.end())
        m.evictedBy.push_back(e->evictedBy);
    } else if (!unseenFound && history_) {
      unseenFound = true;
      const PrefixHistory::Match match = history_->longestMatch(parent, t);
      const int k = j * blockSize_ + match.numTokens;
      if (k > 0) {
        reason = PrefixMissReason::Diverged;
        m.divergedAtToken = k;
        m.divergedOurIds = idsFrom(tokens.data() + k, tokens.data() + n);
        if (match.tokens) m.divergedTheirIds = idsFrom(match.tokens + match.numTokens, match.tokens + blockSize_);
      }
    }
    m[reason] += blockSize_;
    parent = h;
  }
  return m;
}

KvCacheManager::SlotPlan KvCacheManager::planSlots(int64_t id, int numTotalTokens, const PrefixHit* hit,
                                                   int numFullSequenceTokens, int numLookaheadTokens) const {
  SlotPlan p;
  auto it = reqs_.find(id);
  const bool fresh = it == reqs_.end() || it->second.blocks.empty();
  p.hit = fresh && hit && !hit->blockIds.empty() ? hit : nullptr;
  const int have = fresh ? 0 : int(it->second.blocks.size());
  const int numHit = p.hit ? int(p.hit->blockIds.size()) : 0;
  auto numNewFor = [&](int numTokens) { return std::max(0, blocksFor(numTokens) - have - numHit); };
  // Hit blocks sitting in the free queue leave it when touched.
  int numHitFree = 0;
  if (p.hit)
    for (int b : p.hit->blockIds) numHitFree += pool_.block(b).refCount == 0 ? 1 : 0;
  const int available = pool_.numFreeBlocks() - numHitFree;
  p.numNew = numNewFor(numTotalTokens + numLookaheadTokens);
  p.fits = !(numFullSequenceTokens > 0 && numNewFor(numFullSequenceTokens) > available) && p.numNew <= available;
  return p;
}

bool KvCacheManager::canAllocateSlots(int64_t id, int numTotalTokens, const PrefixHit* hit, int numFullSequenceTokens,
                                      int numLookaheadTokens) const {
  return planSlots(id, numTotalTokens, hit, numFullSequenceTokens, numLookaheadTokens).fits;
}

bool KvCacheManager::allocateSlots(int64_t id, int numTotalTokens, const PrefixHit* hit,
                                   const std::vector<int>* tokens, int numFullSequenceTokens,
                                   int numLookaheadTokens) {
  const SlotPlan plan = planSlots(id, numTotalTokens, hit, numFullSequenceTokens, numLookaheadTokens);
  if (!plan.fits) return false;
  const PrefixHit* useHit = plan.hit;
  const int numNew = plan.numNew;
  check(!tokens || int(tokens->size()) >= numTotalTokens,
        "KV cache: request " + std::to_string(id) + " allocates " + std::to_string(numTotalTokens) + " slots but has " +
            std::to_string(tokens ? tokens->size() : 0) + " tokens");

  if (history_) history_->setActor(id);  // the evictions getNewBlocks makes are this request's
  ReqBlocks& r = reqs_[id];
  if (useHit) {
    for (int b : useHit->blockIds) pool_.touch(b);
    r.blocks = useHit->blockIds;
    r.hashes = useHit->hashes;
    r.numWrittenHashes = int(r.hashes.size());  // written by their writer (this step at the latest)
    r.numComputed = useHit->numTokens;
  }
  std::vector<int> fresh_blocks = pool_.getNewBlocks(numNew);
  r.blocks.insert(r.blocks.end(), fresh_blocks.begin(), fresh_blocks.end());
  if (tokens) registerFullBlocks(r, *tokens, numTotalTokens);
  return true;
}

void KvCacheManager::registerFullBlocks(ReqBlocks& r, const std::vector<int>& tokens, int numTokens) {
  const int numFull = std::min(numTokens / blockSize_, int(r.blocks.size()));
  for (int i = int(r.hashes.size()); i < numFull; ++i) {
    const int* t = tokens.data() + size_t(i) * size_t(blockSize_);
    const std::optional<uint64_t> parent = i == 0 ? std::nullopt : std::optional(r.hashes.back());
    uint64_t h = hash(parent.value_or(0), t);
    r.hashes.push_back(h);
    pool_.cacheBlock(r.blocks[size_t(i)], h, t, blockSize_, i * blockSize_, parent);
  }
}

void KvCacheManager::cacheFullBlocks(int64_t id, const std::vector<int>* tokens, int numComputedTokens) {
  auto it = reqs_.find(id);
  if (it == reqs_.end()) return;
  ReqBlocks& r = it->second;
  r.numComputed = numComputedTokens;
  if (tokens) registerFullBlocks(r, *tokens, numComputedTokens);
  r.numWrittenHashes = std::max(r.numWrittenHashes, std::min(int(r.hashes.size()), numComputedTokens / blockSize_));
}

// Blocks past the written ones are this request's own (hits come first), so a hash on
// one of them was registered by this request and its contents are not written.
int KvCacheManager::dropUnwritten(ReqBlocks& r) {
  int n = 0;
  for (size_t i = size_t(r.numWrittenHashes); i < r.hashes.size(); ++i) {
    const KvBlock& b = pool_.block(r.blocks[i]);
    if (b.hash && *b.hash == r.hashes[i]) {
      pool_.uncacheBlock(b.id);
      if (history_ && pool_.numBlocksWithHash(r.hashes[i]) == 0) history_->onDropped(r.hashes[i]);
      ++n;
    }
  }
  r.hashes.resize(size_t(r.numWrittenHashes));
  return n;
}

int KvCacheManager::dropUnwrittenHashes() {
  int n = 0;
  for (auto& [id, r] : reqs_) n += dropUnwritten(r);
  return n;
}

int KvCacheManager::numUnwrittenHashes() const {
  int n = 0;
  for (const auto& [id, r] : reqs_)
    for (size_t i = size_t(r.numWrittenHashes); i < r.hashes.size(); ++i) {
      const KvBlock& b = pool_.block(r.blocks[i]);
      n += b.hash && *b.hash == r.hashes[i] ? 1 : 0;
    }
  return n;
}

int KvImport::numNew() const { return int(std::count(isNew.begin(), isNew.end(), true)); }

std::optional<KvImport> KvCacheManager::importPrefix(int64_t holdId, const std::vector<int>& tokens, int numBlocks) {
  check(!holds(holdId), "importPrefix: id " + std::to_string(holdId) + " already holds blocks");
  check(numBlocks >= 0 && size_t(numBlocks) * size_t(blockSize_) <= tokens.size(),
        "importPrefix: " + std::to_string(numBlocks) + " blocks need more than " + std::to_string(tokens.size()) +
            " tokens");
  ReqBlocks r;
  KvImport out;
  int numTaken = 0;  // hits that are free now leave the free queue too
  uint64_t parent = 0;
  for (int i = 0; i < numBlocks; ++i) {
    const int* t = tokens.data() + size_t(i) * size_t(blockSize_);
    parent = hash(parent, t);
    r.hashes.push_back(parent);
    const int id = pool_.getCachedBlock(parent, t, blockSize_);
    out.blockIds.push_back(id);
    out.isNew.push_back(id < 0);
    numTaken += id < 0 || pool_.block(id).refCount == 0 ? 1 : 0;
  }
  if (numTaken > pool_.numFreeBlocks()) return std::nullopt;
  for (int id : out.blockIds) {
    if (id >= 0) pool_.touch(id);  // before getNewBlocks, which could evict it
  }
  std::vector<int> fresh = pool_.getNewBlocks(out.numNew());
  size_t next = 0;
  for (int i = 0; i < numBlocks; ++i) {
    if (!out.isNew[size_t(i)]) continue;
    const int id = fresh[next++];
    out.blockIds[size_t(i)] = id;
    const std::optional<uint64_t> chainParent = i > 0 ? std::optional<uint64_t>(r.hashes[size_t(i) - 1]) : std::nullopt;
    pool_.cacheBlock(id, r.hashes[size_t(i)], tokens.data() + size_t(i) * size_t(blockSize_), blockSize_,
                     i * blockSize_, chainParent);
  }
  r.blocks = out.blockIds;
  r.numWrittenHashes = numBlocks;
  r.numComputed = numBlocks * blockSize_;
  reqs_[holdId] = std::move(r);
  return out;
}

void KvCacheManager::free(int64_t id) {
  auto it = reqs_.find(id);
  if (it == reqs_.end()) return;
  dropUnwritten(it->second);
  std::vector<int> reversed(it->second.blocks.rbegin(), it->second.blocks.rend());
  pool_.freeBlocks(reversed);
  reqs_.erase(it);
}

void KvCacheManager::trimTo(int64_t id, int numTokens) {
  auto it = reqs_.find(id);
  if (it == reqs_.end()) return;
  ReqBlocks& r = it->second;
  const size_t keep = size_t(blocksFor(numTokens));
  if (r.blocks.size() <= keep) return;
  check(r.hashes.size() <= keep, [&] {
    return "KV cache: request " + std::to_string(id) + " trims to " + std::to_string(keep) + " blocks but " +
           std::to_string(r.hashes.size()) + " are hashed";
  });
  std::vector<int> tail(r.blocks.rbegin(), r.blocks.rend() - long(keep));
  pool_.freeBlocks(tail);
  r.blocks.resize(keep);
}

const std::vector<int>& KvCacheManager::blockIds(int64_t id) const {
  static const std::vector<int> none;
  auto it = reqs_.find(id);
  return it == reqs_.end() ? none : it->second.blocks;
}

int KvCacheManager::numComputedTokens(int64_t id) const {
  auto it = reqs_.find(id);
  return it == reqs_.end() ? 0 : it->second.numComputed;
}

std::vector<int64_t> KvCacheManager::requestIds() const {
  std::vector<int64_t> ids;
  for (const auto& [id, r] : reqs_) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// From the pool's counters: the engine records it every step, and a scan of a large pool
// (8k blocks of ~100 bytes, 800 KB) costs time every step and evicts the forward pass's
// data from the caches.
KvUsage KvCacheManager::usage() const {
  KvUsage u;
  u.numUsed = pool_.numBlocks() - pool_.numFreeBlocks();
  u.numCachedFree = pool_.numCachedFreeBlocks();
  u.numFree = pool_.numFreeBlocks() - u.numCachedFree;
  return u;
}

}  // namespace lwb
