#pragma once
// KV-cache events with vLLM's meaning (vllm/distributed/kv_events.py): a block entered
// the prefix cache (BlockStored), left it (BlockRemoved: evicted for reuse, or its
// contents were never written), or the whole cache was dropped (AllBlocksCleared: the
// pool was rebuilt). The block pool records them while a reader wants them, so a
// consumer that applies them in order holds the same set of cached hashes as the pool.
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

namespace lwb {

struct KvBlockStored {
  std::vector<uint64_t> blockHashes;       // chain hashes, parent first
  std::optional<uint64_t> parentBlockHash;  // of the block before the first; none for a prompt's head
  std::vector<int> tokenIds;                // [blockHashes.size() * blockSize]
  int blockSize = 0;
};
struct KvBlockRemoved {
  std::vector<uint64_t> blockHashes;
};
struct KvAllBlocksCleared {};

using KvCacheEvent = std::variant<KvBlockStored, KvBlockRemoved, KvAllBlocksCleared>;

// What one engine step (or one reported change between steps) did to the prefix cache,
// in order: the unit a reader receives (vLLM's KVEventBatch).
struct KvEventBatch {
  double time = 0;  // wall clock, seconds since the Unix epoch (vLLM's ts)
  std::vector<KvCacheEvent> events;
};

// Where the pool writes its events; off (and free) unless enabled.
class KvEventLog {
 public:
  bool enabled() const { return enabled_; }
  void setEnabled(bool on) { enabled_ = on; }
  void add(KvCacheEvent e) {
    if (enabled_) events_.push_back(std::move(e));
  }
  std::vector<KvCacheEvent> take() { return std::exchange(events_, {}); }

 private:
  bool enabled_ = false;
  std::vector<KvCacheEvent> events_;
};

}  // namespace lwb
