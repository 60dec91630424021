#include "engine/forward_batch_builder.h"

#include <algorithm>

#include "engine/kv/kv_cache_manager.h"

namespace lwb {

namespace {

SeqSlice sliceOf(const ScheduledSeq& s, int32_t firstRow, const KvCacheManager& kv) {
  SeqSlice slice;
  slice.requestId = s.request->id;
  slice.firstRow = firstRow;
  slice.numTokens = s.numNewTokens;
  slice.numCachedTokens = s.numComputedBefore;
  const std::vector<int>& blocks = kv.blockIds(s.request->id);
  int numBlocks = kv.blocksFor(s.numComputedBefore + s.numNewTokens);
  slice.blockTable.assign(blocks.begin(), blocks.begin() + std::min<size_t>(blocks.size(), size_t(numBlocks)));
  slice.needLogits = s.needLogits;
  slice.numLogits = 1 + s.numSpecTokens();
  return slice;
}

}  // namespace

ForwardBatch buildForwardBatch(const SchedulerOutput& plan, const KvCacheManager& kv) {
  ForwardBatch batch;
  batch.tokenIds.reserve(size_t(plan.numScheduledTokens));
  for (const ScheduledSeq& s : plan.seqs) {
    batch.seqs.push_back(sliceOf(s, int32_t(batch.tokenIds.size()), kv));
    const auto first = s.request->tokenIds.begin() + s.numComputedBefore;
    batch.tokenIds.insert(batch.tokenIds.end(), first, first + (s.numNewTokens - s.numSpecTokens()));
    batch.tokenIds.insert(batch.tokenIds.end(), s.specTokenIds.begin(), s.specTokenIds.end());
  }
  return batch;
}

}  // namespace lwb
