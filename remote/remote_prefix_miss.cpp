#include "remote/remote_prefix_miss.h"

#include <algorithm>

namespace lwb::remote {

uint64_t remoteChainKey(uint64_t parentKey, const int* tokens, int numTokens) {
  uint64_t h = 1469598103934665603ull ^ (parentKey * 0x9e3779b97f4a7c15ull);  // FNV-1a over the ids
  for (int i = 0; i < numTokens; ++i) {
    h ^= static_cast<uint32_t>(tokens[i]);
    h *= 1099511628211ull;
  }
  return h == 0 ? 1 : h;  // 0 is the root
}

void RemotePrefixIndex::apply(const RemoteKvBatch& batch) {
  for (const RemoteKvEvent& e : batch.events) apply(e);
}

void RemotePrefixIndex::apply(const RemoteKvEvent& e) {
  switch (e.kind) {
    case RemoteKvEvent::Kind::BlockStored: {
      if (e.blockSize <= 0 || e.tokenIds.size() != e.blockHashes.size() * size_t(e.blockSize)) return;
      uint64_t parentKey = 0;
      if (e.parentBlockHash) {
        auto it = keyOfHash_.find(*e.parentBlockHash);
        if (it == keyOfHash_.end()) {
          ++numUnanchored_;
          return;
        }
        parentKey = it->second;
      }
      blockSize_ = e.blockSize;
      for (size_t i = 0; i < e.blockHashes.size(); ++i) {
        const int* first = e.tokenIds.data() + i * size_t(e.blockSize);
        const uint64_t key = remoteChainKey(parentKey, first, e.blockSize);
        store(e.blockHashes[i], key, parentKey, {first, first + e.blockSize});
        parentKey = key;
      }
      break;
    }
    case RemoteKvEvent::Kind::BlockRemoved:
      for (const BlockHashText& h : e.blockHashes) remove(h);
      break;
    case RemoteKvEvent::Kind::AllBlocksCleared:
      for (auto& [key, entry] : entries_)
        if (entry.numCopies > 0) {
          entry.numCopies = 0;
          removed_.push_back(key);
        }
      keyOfHash_.clear();
      while (removed_.size() > maxRemembered_) forgetOldest();
      break;
  }
}

void RemotePrefixIndex::store(const BlockHashText& hash, uint64_t key, uint64_t parentKey, std::vector<int> tokens) {
  keyOfHash_[hash] = key;
  auto [it, inserted] = entries_.try_emplace(key);
  if (inserted) {
    it->second.parentKey = parentKey;
    it->second.tokenIds = std::move(tokens);
    children_[parentKey].push_back(key);
  }
  it->second.hash = hash;
  ++it->second.numCopies;
}

void RemotePrefixIndex::remove(const BlockHashText& hash) {
  auto k = keyOfHash_.find(hash);
  if (k == keyOfHash_.end()) return;
  auto it = entries_.find(k->second);
  if (it == entries_.end() || it->second.numCopies == 0) return;
  if (--it->second.numCopies > 0) return;
  // The hash stays known while it is remembered: a child stored later still finds its parent.
  removed_.push_back(k->second);
  while (removed_.size() > maxRemembered_) forgetOldest();
}

void RemotePrefixIndex::forgetOldest() {
  const uint64_t key = removed_.front();
  removed_.pop_front();
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.numCopies > 0) return;  // stored again since
  auto& siblings = children_[it->second.parentKey];
  siblings.erase(std::remove(siblings.begin(), siblings.end(), key), siblings.end());
  if (auto h = keyOfHash_.find(it->second.hash); h != keyOfHash_.end() && h->second == key) keyOfHash_.erase(h);
  entries_.erase(it);
}

RemotePromptLookup RemotePrefixIndex::lookup(const std::vector<int>& ids) const {
  RemotePromptLookup out;
  out.blockSize = blockSize_;
  out.numPromptTokens = static_cast<int>(ids.size());
  if (blockSize_ <= 0) return out;
  const int numFull = out.numPromptTokens / blockSize_;
  uint64_t parentKey = 0;
  bool chainSeen = true;  // every block before this one is known to the index
  for (int b = 0; b < numFull; ++b) {
    const int* first = ids.data() + size_t(b) * size_t(blockSize_);
    const uint64_t key = chainSeen ? remoteChainKey(parentKey, first, blockSize_) : 0;
    auto it = chainSeen ? entries_.find(key) : entries_.end();
    if (it == entries_.end()) {
      if (chainSeen) {  // the first never-seen block: how far does a seen sibling match?
        int shared = 0;
        if (auto c = children_.find(parentKey); c != children_.end())
          for (uint64_t child : c->second) {
            const std::vector<int>& t = entries_.at(child).tokenIds;
            int n = 0;
            while (n < blockSize_ && t[size_t(n)] == first[n]) ++n;
            shared = std::max(shared, n);
          }
        const int k = b * blockSize_ + shared;
        if (k > 0) out.divergedAtToken = k;
      }
      chainSeen = false;
      out.blocks.push_back(RemoteBlockSeen::Never);
      continue;
    }
    out.blocks.push_back(it->second.numCopies > 0 ? RemoteBlockSeen::Held : RemoteBlockSeen::Removed);
    parentKey = key;
  }
  return out;
}

RemotePrefixMiss explainRemoteMiss(const RemotePromptLookup& s, std::optional<int> cachedTokens) {
  RemotePrefixMiss out;
  if (!cachedTokens) {
    out.why = "the server's usage did not include prompt_tokens_details.cached_tokens";
    return out;
  }
  if (s.blockSize <= 0) {
    out.why = "no BlockStored event had been received when the prompt was sent";
    return out;
  }
  const int bs = s.blockSize, n = s.numPromptTokens, numFull = n / bs;
  const int hitBlocks = std::clamp(*cachedTokens / bs, 0, numFull);
  PrefixMiss& m = out.miss;
  m[PrefixMissReason::PartialBlock] = n - numFull * bs;
  // A hit not on a block boundary (a server with another granularity) counts as hit tokens.
  const int extraHit = std::clamp(*cachedTokens - hitBlocks * bs, 0, bs);
  bool divergedUsed = false;
  for (int b = hitBlocks; b < numFull; ++b) {
    const RemoteBlockSeen seen = b < int(s.blocks.size()) ? s.blocks[size_t(b)] : RemoteBlockSeen::Never;
    const int tokens = b == hitBlocks ? bs - extraHit : bs;
    if (seen == RemoteBlockSeen::Held && b == hitBlocks && b == numFull - 1 && n % bs == 0)
      m[PrefixMissReason::LastToken] += tokens;
    else if (seen == RemoteBlockSeen::Held && b > hitBlocks)
      m[PrefixMissReason::BehindMiss] += tokens;
    else if (seen == RemoteBlockSeen::Held)
      out.heldWhenSent += tokens;
    else if (seen == RemoteBlockSeen::Removed)
      m[PrefixMissReason::Evicted] += tokens;
    else if (!divergedUsed && s.divergedAtToken > 0) {
      m[PrefixMissReason::Diverged] += tokens;
      m.divergedAtToken = s.divergedAtToken;
      divergedUsed = true;
    } else {
      m[PrefixMissReason::Cold] += tokens;
    }
  }
  m.accounted = true;
  out.known = true;
  return out;
}

}  // namespace lwb::remote
