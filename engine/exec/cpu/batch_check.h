#pragma once
// Validation of a ForwardBatch before an executor touches its KV cache.
#include "engine/exec/executor.h"
#include "engine/model/model_config.h"

namespace lwb {

// Throws lwb::Error naming the request and the offending field when: slices do not cover
// the rows in order, a token id is outside the vocabulary, a position reaches
// max_position_embeddings, the block table is too short or names a block outside
// [0, numBlocks), or no KV cache is allocated.
void validateBatch(const ForwardBatch& batch, const ModelConfig& config, int numBlocks, int blockSize);

}  // namespace lwb
