#pragma once
// Why a remote server's prefix cache missed a prompt we sent, as far as its KV-cache
// events tell (docs/remote.md, "Why a remote prefix missed"). vLLM's block hashes cannot
// be recomputed from outside (the seed, cache_salt, LoRA and multimodal keys are the
// server's), so blocks are matched by content: each BlockStored carries its token ids and
// its parent's hash, from which the index builds its own chain key (parent key, tokens).
// When a prompt is sent, lookup() records what the events said about each of its full
// blocks; when its usage arrives, explainRemoteMiss() splits the prompt by reason with
// the server's cached_tokens. Memory is bounded: removed blocks are remembered in a
// first-in first-out ring of `maxRemembered` entries.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/kv/prefix_miss.h"
#include "wire/kv_event_codec.h"

namespace lwb::remote {

// What the events said about one full block of a prompt at the moment it was sent.
enum class RemoteBlockSeen { Never, Held, Removed };

struct RemotePromptLookup {
  int blockSize = 0;                   // 0: no BlockStored seen yet (nothing can be said)
  int numPromptTokens = 0;
  std::vector<RemoteBlockSeen> blocks;  // [numPromptTokens / blockSize]
  // The first never-seen full block: leading prompt tokens shared with the seen chain
  // that matches longest (-1 when no block is never-seen or nothing was shared).
  int divergedAtToken = -1;
};

struct RemotePrefixMiss {
  bool known = false;   // false: `why` says what was missing
  std::string why;
  PrefixMiss miss;      // hits excluded: cached + reasons + heldWhenSent = prompt length
  // Tokens of missed blocks the events showed cached when the prompt was sent: removed
  // before the server looked them up, or hashed differently by it (cache_salt, LoRA).
  int heldWhenSent = 0;
};

class RemotePrefixIndex {
 public:
  explicit RemotePrefixIndex(size_t maxRemembered = 65536) : maxRemembered_(maxRemembered) {}
  void apply(const RemoteKvBatch& batch);
  void apply(const RemoteKvEvent& event);
  RemotePromptLookup lookup(const std::vector<int>& promptIds) const;
  int blockSize() const { return blockSize_; }
  // BlockStored events whose parent hash was unknown (stored before the subscription or
  // in a missed batch): their blocks cannot be matched by content.
  int64_t numUnanchored() const { return numUnanchored_; }
  size_t numRemembered() const { return entries_.size(); }

 private:
  struct Entry {
    int numCopies = 0;
    uint64_t parentKey = 0;
    BlockHashText hash;         // the server's, as last stored
    std::vector<int> tokenIds;  // [blockSize]
  };
  void store(const BlockHashText& hash, uint64_t key, uint64_t parentKey, std::vector<int> tokens);
  void remove(const BlockHashText& hash);
  void forgetOldest();

  size_t maxRemembered_;
  int blockSize_ = 0;
  int64_t numUnanchored_ = 0;
  std::unordered_map<BlockHashText, uint64_t> keyOfHash_;          // of remembered entries
  std::unordered_map<uint64_t, Entry> entries_;                    // held and remembered-removed
  std::unordered_map<uint64_t, std::vector<uint64_t>> children_;  // chain key → child keys (0: heads)
  std::deque<uint64_t> removed_;                                   // oldest first
};

// The chain key of a block: `parentKey` (0 for a prompt's head) and its tokens.
uint64_t remoteChainKey(uint64_t parentKey, const int* tokens, int numTokens);

// Precedence as the engine's (prefix_miss.h): partial_block, last_token, behind_miss,
// evicted, diverged, cold. caching_off is not known from outside.
RemotePrefixMiss explainRemoteMiss(const RemotePromptLookup& atSend, std::optional<int> cachedTokens);

}  // namespace lwb::remote
