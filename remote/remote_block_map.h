#pragma once
// The prefix-cache blocks of a remote engine, rebuilt from its KV-cache events: which
// block hashes it holds now, with their tokens and parents. Several blocks may carry one
// hash (vLLM keeps duplicates and reports each), so entries count their copies and a
// BlockRemoved takes one copy away.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "wire/kv_event_codec.h"

namespace lwb::remote {

struct RemoteBlock {
  int numCopies = 0;
  std::optional<BlockHashText> parent;
  std::vector<int> tokenIds;  // [blockSize]
  std::string medium;
};

class RemoteBlockMap {
 public:
  void apply(const RemoteKvBatch& batch);
  void apply(const RemoteKvEvent& event);
  void clear();

  const std::map<BlockHashText, RemoteBlock>& blocks() const { return blocks_; }
  int numBlocks() const { return numBlocks_; }          // copies counted
  int blockSize() const { return blockSize_; }          // as last stored (0 before)
  int64_t numStored() const { return numStored_; }      // blocks, since the start
  int64_t numRemoved() const { return numRemoved_; }
  int64_t numCleared() const { return numCleared_; }
  // Removals of hashes the map did not hold: events were missed (or came out of order).
  int64_t numUnknownRemovals() const { return numUnknownRemovals_; }
  // The longest chain of held blocks ending at `hash` (1 for a head block).
  int chainLength(const BlockHashText& hash) const;

 private:
  std::map<BlockHashText, RemoteBlock> blocks_;
  int numBlocks_ = 0, blockSize_ = 0;
  int64_t numStored_ = 0, numRemoved_ = 0, numCleared_ = 0, numUnknownRemovals_ = 0;
};

}  // namespace lwb::remote
