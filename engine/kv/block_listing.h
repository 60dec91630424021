#pragma once
// A read-only listing of every KV block (free, cached-free, owned) with its owners and
// the token positions it holds: what the block map and KV snapshots show.
#include <cstdint>
#include <vector>

namespace lwb {

class KvCacheManager;

struct KvBlockInfo {
  enum class Kind { Free, CachedFree, Owned };
  Kind kind = Kind::Free;
  int refCount = 0;
  uint64_t hash = 0;               // valid when hasHash
  bool hasHash = false;
  std::vector<int64_t> owners;     // ids of the requests holding it
  int firstTokenPos = 0;           // position of its first token in the owner's sequence
  int numTokens = 0;               // filled slots
};

// index = block id
std::vector<KvBlockInfo> listKvBlocks(const KvCacheManager& kv);

}  // namespace lwb
