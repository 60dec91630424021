#include "engine/kv/prefix_history.h"

#include <algorithm>
#include <cstring>

#include "engine/common/error.h"

namespace lwb {

PrefixHistory::PrefixHistory(int capacity, int blockSize) : blockSize_(blockSize) {
  check(capacity >= 1 && blockSize >= 1, "prefix history: capacity " + std::to_string(capacity) + ", block size " +
                                             std::to_string(blockSize) + "; expected at least 1 each");
  entries_.resize(size_t(capacity));
  tokens_.resize(size_t(capacity) * size_t(blockSize));
  byHash_.reserve(size_t(capacity));
  byChild_.reserve(size_t(capacity));
}

size_t PrefixHistory::approxBytes() const {
  // Ring + tokens, and per live entry one node in each index (key, value, links, bucket).
  const size_t perNode = 48;
  return entries_.size() * (sizeof(Entry) + sizeof(int) * size_t(blockSize_) + 2 * perNode + sizeof(int));
}

uint64_t PrefixHistory::childKey(std::optional<uint64_t> parent, int firstToken) {
  const uint64_t p = parent ? *parent * 0x9E3779B97F4A7C15ull + 1 : 0;
  return p ^ (uint64_t(uint32_t(firstToken)) * 0xC2B2AE3D27D4EB4Full);
}

void PrefixHistory::forget(int slot) {
  Entry& e = entries_[size_t(slot)];
  if (!e.live) return;
  e.live = false;
  auto h = byHash_.find(e.hash);
  if (h != byHash_.end() && h->second == slot) byHash_.erase(h);
  const int first = tokens_[size_t(slot) * size_t(blockSize_)];
  auto c = byChild_.find(childKey(e.hasParent ? std::optional(e.parent) : std::nullopt, first));
  if (c == byChild_.end()) return;
  std::vector<int>& slots = c->second;
  slots.erase(std::remove(slots.begin(), slots.end(), slot), slots.end());
  if (slots.empty()) byChild_.erase(c);
}

void PrefixHistory::onStored(uint64_t hash, std::optional<uint64_t> parent, const int* tokens) {
  if (auto it = byHash_.find(hash); it != byHash_.end()) forget(it->second);  // renewed: the newest slot
  const int slot = next_;
  next_ = (next_ + 1) % capacity();
  forget(slot);  // the ring wraps: the oldest entry goes
  Entry& e = entries_[size_t(slot)];
  e = Entry{hash, parent.value_or(0), parent.has_value(), true, false, 0, 0};
  std::memcpy(tokens_.data() + size_t(slot) * size_t(blockSize_), tokens, sizeof(int) * size_t(blockSize_));
  byHash_[hash] = slot;
  byChild_[childKey(parent, tokens[0])].push_back(slot);
}

void PrefixHistory::onEvicted(uint64_t hash, std::optional<uint64_t> parent, const int* tokens) {
  onStored(hash, parent, tokens);
  Entry& e = entries_[size_t(byHash_.at(hash))];
  e.evicted = true;
  e.evictedTime = now_;
  e.evictedBy = actor_;
}

void PrefixHistory::onDropped(uint64_t hash) {
  auto it = byHash_.find(hash);
  if (it != byHash_.end()) forget(it->second);
}

const PrefixHistory::Entry* PrefixHistory::find(uint64_t hash) const {
  auto it = byHash_.find(hash);
  return it == byHash_.end() ? nullptr : &entries_[size_t(it->second)];
}

PrefixHistory::Match PrefixHistory::longestMatch(std::optional<uint64_t> parent, const int* tokens) const {
  Match best;
  auto c = byChild_.find(childKey(parent, tokens[0]));
  if (c == byChild_.end()) return best;
  const std::vector<int>& slots = c->second;
  int scanned = 0;
  for (auto it = slots.rbegin(); it != slots.rend() && scanned < kMaxScan; ++it) {
    const Entry& e = entries_[size_t(*it)];
    if (e.hasParent != parent.has_value() || (parent && e.parent != *parent)) continue;  // a key collision
    ++scanned;
    const int* t = tokens_.data() + size_t(*it) * size_t(blockSize_);
    const int n = int(std::mismatch(t, t + blockSize_, tokens).first - t);
    if (n > best.numTokens) best = {n, &e, t};
  }
  return best;
}

}  // namespace lwb
