#include "engine/kv/block_pool.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>

#include "engine/common/error.h"

namespace lwb {

namespace {
// Events are built only when someone reads them: no copies on the hot path otherwise.
bool recording(const KvEventLog* log) { return log && log->enabled(); }
}  // namespace

uint64_t hashBlockTokens(uint64_t parentHash, const int* tokens, int numTokens) {
  // One contiguous buffer: [parent hash (8 bytes), token ids (4 bytes each)].
  std::vector<unsigned char> buf(sizeof parentHash + sizeof(int) * size_t(numTokens));
  std::memcpy(buf.data(), &parentHash, sizeof parentHash);
  if (numTokens > 0) std::memcpy(buf.data() + sizeof parentHash, tokens, sizeof(int) * size_t(numTokens));
  return XXH3_64bits(buf.data(), buf.size());
}

BlockPool::BlockPool(int numBlocks) {
  check(numBlocks >= 1, "KV cache: " + std::to_string(numBlocks) + " blocks; expected at least 1");
  blocks_.resize(size_t(numBlocks));
  for (int i = 0; i < numBlocks; ++i) {
    blocks_[size_t(i)].id = i;
    pushBack(i);
  }
}

void BlockPool::pushBack(int id) {
  KvBlock& b = blocks_[size_t(id)];
  b.prevFree = tail_;
  b.nextFree = -1;
  if (tail_ >= 0) blocks_[size_t(tail_)].nextFree = id;
  else head_ = id;
  tail_ = id;
  b.inFreeQueue = true;
  ++numFree_;
  if (b.hash) ++numCachedFree_;
}

void BlockPool::pushFront(int id) {
  KvBlock& b = blocks_[size_t(id)];
  b.prevFree = -1;
  b.nextFree = head_;
  if (head_ >= 0) blocks_[size_t(head_)].prevFree = id;
  else tail_ = id;
  head_ = id;
  b.inFreeQueue = true;
  ++numFree_;
  if (b.hash) ++numCachedFree_;
}

void BlockPool::unlink(int id) {
  KvBlock& b = blocks_[size_t(id)];
  if (b.prevFree >= 0) blocks_[size_t(b.prevFree)].nextFree = b.nextFree;
  else head_ = b.nextFree;
  if (b.nextFree >= 0) blocks_[size_t(b.nextFree)].prevFree = b.prevFree;
  else tail_ = b.prevFree;
  b.prevFree = b.nextFree = -1;
  b.inFreeQueue = false;
  --numFree_;
  if (b.hash) --numCachedFree_;
}

void BlockPool::evict(KvBlock& b) {
  if (!b.hash) return;
  // Only the last copy's eviction makes the hash unfindable.
  if (history_ && numBlocksWithHash(*b.hash) == 1 && int(b.tokenIds.size()) > 0)
    history_->onEvicted(*b.hash, b.parentHash, b.tokenIds.data());
  uncacheBlock(b.id);
}

std::vector<int> BlockPool::getNewBlocks(int n) {
  check(n <= numFree_,
        [&] { return "KV cache: asked for " + std::to_string(n) + " blocks, " + std::to_string(numFree_) + " free"; });
  std::vector<int> out;
  out.reserve(size_t(n));
  for (int i = 0; i < n; ++i) {
    int id = head_;
    unlink(id);
    KvBlock& b = blocks_[size_t(id)];
    evict(b);
    b.refCount = 1;
    out.push_back(id);
  }
  return out;
}

void BlockPool::touch(int id) {
  KvBlock& b = blocks_[size_t(id)];
  if (b.inFreeQueue) unlink(id);
  ++b.refCount;
}

void BlockPool::freeBlocks(const std::vector<int>& ids) {
  std::vector<int> unhashed;
  for (int id : ids) {
    KvBlock& b = blocks_[size_t(id)];
    check(b.refCount > 0, [&] { return "KV cache: block " + std::to_string(id) + " freed with ref count 0"; });
    if (--b.refCount > 0) continue;
    if (b.hash) pushBack(id);
    else unhashed.push_back(id);
  }
  // Front-inserted in reverse, so the first given is the first handed out again.
  for (auto it = unhashed.rbegin(); it != unhashed.rend(); ++it) pushFront(*it);
}

int BlockPool::getCachedBlock(uint64_t hash, const int* tokens, int numTokens) const {
  auto it = cached_.find(hash);
  if (it == cached_.end()) return -1;
  for (int id : it->second) {
    const KvBlock& b = blocks_[size_t(id)];
    if (int(b.tokenIds.size()) == numTokens &&
        std::memcmp(b.tokenIds.data(), tokens, sizeof(int) * size_t(numTokens)) == 0)
      return id;
  }
  return -1;
}

int BlockPool::numBlocksWithHash(uint64_t hash) const {
  auto it = cached_.find(hash);
  return it == cached_.end() ? 0 : int(it->second.size());
}

bool BlockPool::cacheBlock(int id, uint64_t hash, const int* tokens, int numTokens, int firstTokenPos,
                           std::optional<uint64_t> parentHash) {
  KvBlock& b = blocks_[size_t(id)];
  if (b.hash) return false;
  cached_[hash].push_back(id);
  b.hash = hash;
  if (b.inFreeQueue) ++numCachedFree_;
  b.tokenIds.assign(tokens, tokens + numTokens);
  b.firstTokenPos = firstTokenPos;
  b.parentHash = parentHash;
  if (history_) history_->onStored(hash, parentHash, b.tokenIds.data());
  if (recording(eventLog_)) eventLog_->add(KvBlockStored{{hash}, parentHash, b.tokenIds, numTokens});
  return true;
}

void BlockPool::announceCachedBlocks() const {
  if (!recording(eventLog_)) return;
  for (const KvBlock& b : blocks_)
    if (b.hash) eventLog_->add(KvBlockStored{{*b.hash}, b.parentHash, b.tokenIds, int(b.tokenIds.size())});
}

void BlockPool::uncacheBlock(int id) {
  KvBlock& b = blocks_[size_t(id)];
  if (!b.hash) return;
  auto it = cached_.find(*b.hash);
  if (it != cached_.end()) {
    std::vector<int>& ids = it->second;
    ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
    if (ids.empty()) cached_.erase(it);
  }
  if (recording(eventLog_)) eventLog_->add(KvBlockRemoved{{*b.hash}});
  if (b.inFreeQueue) --numCachedFree_;
  b.hash.reset();
  b.tokenIds.clear();
  b.parentHash.reset();
}

std::vector<int> BlockPool::freeQueueOrder() const {
  std::vector<int> out;
  for (int id = head_; id >= 0; id = blocks_[size_t(id)].nextFree) out.push_back(id);
  return out;
}

}  // namespace lwb
