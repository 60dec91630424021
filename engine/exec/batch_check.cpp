#include "engine/exec/batch_check.h"

#include <string>

#include "engine/common/error.h"

namespace lwb {
namespace {

std::string where(const SeqSlice& s) { return "forward batch: request " + std::to_string(s.requestId) + ": "; }

void checkSlice(const SeqSlice& s, const BatchBounds& bounds) {
  const int numBlocks = bounds.numBlocks, blockSize = bounds.blockSize;
  check(s.numTokens >= 1, [&] { return where(s) + "numTokens must be >= 1, found " + std::to_string(s.numTokens); });
  check(s.numCachedTokens >= 0,
        [&] { return where(s) + "numCachedTokens must be >= 0, found " + std::to_string(s.numCachedTokens); });
  check(!s.needLogits || (s.numLogits >= 1 && s.numLogits <= s.numTokens), [&] {
    return where(s) + "numLogits must be in 1..numTokens (" + std::to_string(s.numTokens) + "), found " +
           std::to_string(s.numLogits);
  });
  const int64_t end = int64_t(s.numCachedTokens) + s.numTokens;
  check(end <= bounds.maxPositions, [&] {
    return where(s) + "position " + std::to_string(end - 1) + " is past max_position_embeddings (" +
           std::to_string(bounds.maxPositions) + ")";
  });
  const int64_t blocksNeeded = (end + blockSize - 1) / blockSize;
  check(int64_t(s.blockTable.size()) >= blocksNeeded, [&] {
    return where(s) + "block table has " + std::to_string(s.blockTable.size()) + " blocks, positions [0, " +
           std::to_string(end) + ") need " + std::to_string(blocksNeeded) + " of " + std::to_string(blockSize);
  });
  for (size_t b = 0; b < s.blockTable.size(); ++b)
    check(s.blockTable[b] >= 0 && s.blockTable[b] < numBlocks, [&] {
      return where(s) + "block table entry " + std::to_string(b) + " is block " + std::to_string(s.blockTable[b]) +
             ", outside [0, " + std::to_string(numBlocks) + ")";
    });
}

}  // namespace

void validateBatch(const ForwardBatch& batch, const BatchBounds& bounds) {
  check(bounds.numBlocks > 0 && bounds.blockSize > 0, "forward batch: no KV cache allocated (call allocateKvCache first)");
  int row = 0;
  for (const SeqSlice& s : batch.seqs) {
    check(s.firstRow == row, [&] {
      return where(s) + "firstRow is " + std::to_string(s.firstRow) + ", expected " + std::to_string(row) +
             " (slices must cover the rows in order)";
    });
    checkSlice(s, bounds);
    row += s.numTokens;
    check(row <= batch.numRows(), [&] {
      return where(s) + "rows [" + std::to_string(s.firstRow) + ", " + std::to_string(row) + ") run past the batch's " +
             std::to_string(batch.numRows()) + " tokens";
    });
  }
  check(row == batch.numRows(), [&] {
    return "forward batch: slices cover " + std::to_string(row) + " rows, the batch has " +
           std::to_string(batch.numRows()) + " tokens";
  });
  for (size_t i = 0; i < batch.tokenIds.size(); ++i)
    check(batch.tokenIds[i] >= 0 && batch.tokenIds[i] < bounds.vocabSize, [&] {
      return "forward batch: token id " + std::to_string(batch.tokenIds[i]) + " at row " + std::to_string(i) +
             " is outside the vocabulary [0, " + std::to_string(bounds.vocabSize) + ")";
    });
}

}  // namespace lwb
