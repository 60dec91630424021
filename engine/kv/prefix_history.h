#pragma once
// What the prefix cache has held, remembered beyond eviction so that a miss can be
// explained (prefix_miss.h): every full block ever registered, with its chain hash, its
// parent's hash, its tokens, and, once its last copy was evicted, when and by whose
// allocation. Memory is bounded: a ring of `capacity` entries (each blockSize token ids
// and a few words) plus two hash indexes over the live entries. When the ring wraps, the
// oldest entry is forgotten: a block evicted longer ago than `capacity` newer
// registrations and evictions then reads as never seen (diverged or cold, not evicted).
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace lwb {

class PrefixHistory {
 public:
  struct Entry {
    uint64_t hash = 0;
    uint64_t parent = 0;     // the parent block's chain hash (meaningful when hasParent)
    bool hasParent = false;  // false: the first block of a sequence
    bool live = false;       // false: a free slot or a forgotten entry
    bool evicted = false;    // its last cached copy was evicted (and not registered again)
    double evictedTime = 0;
    int64_t evictedBy = 0;   // the request whose allocation took the block
  };
  struct Match {
    int numTokens = 0;            // leading tokens shared with the best remembered block
    const Entry* entry = nullptr;  // that block, or null when none shares a token
    const int* tokens = nullptr;   // its blockSize tokens
  };

  PrefixHistory(int capacity, int blockSize);
  int capacity() const { return int(entries_.size()); }
  // Bytes the ring and its indexes take at most; for docs/benchmarks.md and tests.
  size_t approxBytes() const;

  // The clock and the request allocating now: stamped on the evictions that follow.
  void setNow(double now) { now_ = now; }
  void setActor(int64_t requestId) { actor_ = requestId; }

  // A full block was registered (first copy, or again after its eviction).
  void onStored(uint64_t hash, std::optional<uint64_t> parent, const int* tokens);
  // The last cached copy of `hash` left the cache for reuse. The entry is renewed (or
  // made again, if the ring forgot it while the block stayed cached).
  void onEvicted(uint64_t hash, std::optional<uint64_t> parent, const int* tokens);
  // The last copy's hash was dropped unwritten: the block was never computed.
  void onDropped(uint64_t hash);

  const Entry* find(uint64_t hash) const;
  // The remembered block following `parent` whose tokens share the longest head with
  // `tokens` (blockSize of them). Scans at most kMaxScan of the newest candidates that
  // share the first token, so the length is exact unless more earlier blocks followed
  // the same parent with the same first token.
  Match longestMatch(std::optional<uint64_t> parent, const int* tokens) const;
  static constexpr int kMaxScan = 64;

 private:
  static uint64_t childKey(std::optional<uint64_t> parent, int firstToken);
  void forget(int slot);

  int blockSize_;
  std::vector<Entry> entries_;  // [capacity], a ring
  std::vector<int> tokens_;     // [capacity * blockSize]
  int next_ = 0;
  double now_ = 0;
  int64_t actor_ = 0;
  std::unordered_map<uint64_t, int> byHash_;                // hash → slot
  std::unordered_map<uint64_t, std::vector<int>> byChild_;  // childKey → slots, oldest first
};

}  // namespace lwb
