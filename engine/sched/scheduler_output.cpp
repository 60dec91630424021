#include "engine/sched/scheduler_output.h"

#include <algorithm>

#include "engine/kv/kv_cache_manager.h"

namespace lwb {

int ScheduledSeq::numPrefillTokens() const {
  int promptLeft = request->numPromptTokens - numComputedBefore;
  return std::clamp(promptLeft, 0, numNewTokens);
}

ForwardBatch SchedulerOutput::toForwardBatch(const KvCacheManager& kv) const {
  ForwardBatch batch;
  batch.tokenIds.reserve(size_t(numScheduledTokens));
  for (const ScheduledSeq& s : seqs) {
    SeqSlice slice;
    slice.requestId = s.request->id;
    slice.firstRow = int32_t(batch.tokenIds.size());
    slice.numTokens = s.numNewTokens;
    slice.numCachedTokens = s.numComputedBefore;
    const std::vector<int>& blocks = kv.blockIds(s.request->id);
    int numBlocks = kv.blocksFor(s.numComputedBefore + s.numNewTokens);
    slice.blockTable.assign(blocks.begin(), blocks.begin() + std::min<size_t>(blocks.size(), size_t(numBlocks)));
    slice.needLogits = s.needLogits;
    slice.numLogits = 1 + s.numSpecTokens();
    const auto first = s.request->tokenIds.begin() + s.numComputedBefore;
    batch.tokenIds.insert(batch.tokenIds.end(), first, first + (s.numNewTokens - s.numSpecTokens()));
    batch.tokenIds.insert(batch.tokenIds.end(), s.specTokenIds.begin(), s.specTokenIds.end());
    batch.seqs.push_back(std::move(slice));
  }
  return batch;
}

}  // namespace lwb
