#include "engine/kv/block_listing.h"

#include <algorithm>

#include "engine/kv/kv_cache_manager.h"

namespace lwb {
namespace {

KvBlockInfo describeBlock(const KvBlock& b, int blockSize) {
  KvBlockInfo info;
  info.refCount = b.refCount;
  info.hasHash = b.hash.has_value();
  info.hash = b.hash.value_or(0);
  info.kind = b.refCount > 0 ? KvBlockInfo::Kind::Owned
              : b.hash       ? KvBlockInfo::Kind::CachedFree
                             : KvBlockInfo::Kind::Free;
  if (b.hash) {  // a full block: its position is known even without an owner
    info.firstTokenPos = b.firstTokenPos;
    info.numTokens = blockSize;
  }
  return info;
}

}  // namespace

std::vector<KvBlockInfo> listKvBlocks(const KvCacheManager& kv) {
  const int bs = kv.blockSize();
  std::vector<KvBlockInfo> out;
  out.reserve(size_t(kv.numBlocks()));
  for (int i = 0; i < kv.numBlocks(); ++i) out.push_back(describeBlock(kv.pool().block(i), bs));
  for (int64_t id : kv.requestIds()) {
    const std::vector<int>& blocks = kv.blockIds(id);
    const int numComputed = kv.numComputedTokens(id);
    for (size_t j = 0; j < blocks.size(); ++j) {
      KvBlockInfo& info = out[size_t(blocks[j])];
      if (info.owners.empty()) {  // a shared block shows its first owner's positions
        info.firstTokenPos = int(j) * bs;
        info.numTokens = std::clamp(numComputed - int(j) * bs, 0, bs);
      }
      info.owners.push_back(id);
    }
  }
  return out;
}

}  // namespace lwb
