#include "remote/remote_block_map.h"

namespace lwb::remote {

void RemoteBlockMap::apply(const RemoteKvBatch& batch) {
  for (const RemoteKvEvent& e : batch.events) apply(e);
}

void RemoteBlockMap::apply(const RemoteKvEvent& e) {
  switch (e.kind) {
    case RemoteKvEvent::Kind::BlockStored: {
      std::optional<BlockHashText> parent = e.parentBlockHash;
      for (size_t i = 0; i < e.blockHashes.size(); ++i) {
        RemoteBlock& b = blocks_[e.blockHashes[i]];
        ++b.numCopies;
        b.parent = parent;
        const auto first = e.tokenIds.begin() + std::ptrdiff_t(i) * e.blockSize;
        b.tokenIds.assign(first, first + e.blockSize);
        b.medium = e.medium;
        parent = e.blockHashes[i];  // a multi-block event is one chain
        ++numBlocks_;
        ++numStored_;
      }
      blockSize_ = e.blockSize;
      break;
    }
    case RemoteKvEvent::Kind::BlockRemoved:
      for (const BlockHashText& h : e.blockHashes) {
        auto it = blocks_.find(h);
        if (it == blocks_.end()) {
          ++numUnknownRemovals_;
          continue;
        }
        if (--it->second.numCopies == 0) blocks_.erase(it);
        --numBlocks_;
        ++numRemoved_;
      }
      break;
    case RemoteKvEvent::Kind::AllBlocksCleared:
      clear();
      ++numCleared_;
      break;
  }
}

void RemoteBlockMap::clear() {
  blocks_.clear();
  numBlocks_ = 0;
}

int RemoteBlockMap::chainLength(const BlockHashText& hash) const {
  int n = 0;
  std::optional<BlockHashText> h = hash;
  while (h && n <= int(blocks_.size())) {  // bounded: a cycle cannot loop forever
    auto it = blocks_.find(*h);
    if (it == blocks_.end()) break;
    ++n;
    h = it->second.parent;
  }
  return n;
}

}  // namespace lwb::remote
