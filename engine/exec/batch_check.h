#pragma once
// Validation of a ForwardBatch before an executor touches its KV cache: one check and
// one set of messages for every executor (the CPU one, and the CUDA plugin, which is
// built without the engine library and so takes plain bounds, not a ModelConfig).
#include "engine/exec/executor.h"

namespace lwb {

struct BatchBounds {
  int vocabSize = 0;
  int maxPositions = 0;  // max_position_embeddings
  int numBlocks = 0;     // of the allocated KV cache (0: none allocated)
  int blockSize = 0;
};

// Throws lwb::Error naming the request and the offending field when: slices do not cover
// the rows in order, a token id is outside the vocabulary, a position reaches
// max_position_embeddings, the block table is too short or names a block outside
// [0, numBlocks), or no KV cache is allocated.
void validateBatch(const ForwardBatch& batch, const BatchBounds& bounds);

}  // namespace lwb
