#pragma once
// Host side of one CUDA forward: validates a ForwardBatch and flattens it into the int32
// metadata the kernels read (token ids, positions, cache slots, logit rows, block
// tables, attention work items). Plain C++ (no CUDA), so it is easy to read and test.
// The metadata lives in ONE buffer with a fixed layout per capacity set, copied to the
// device in one transfer; CUDA graphs keep pointing at it between replays.
#include <cstdint>
#include <vector>

#include "engine/exec/executor.h"

namespace lwb::cuda {

// One attention block's share (the kv head is the grid's y index): query rows
// [firstRow, firstRow + numRows) of one sequence at positions firstPos.., against key
// positions [kvBegin, kvEnd) (each row additionally stops at its own position).
struct AttnWork {
  int32_t btOffset;  // the sequence's block table in MetaLayout::blockTables
  int32_t firstRow, numRows, firstPos;
  int32_t kvBegin, kvEnd;
  int32_t partial;   // -1: write the output row; else partial slot (numRows == 1)
  int32_t pad;
};
static_assert(sizeof(AttnWork) == 8 * sizeof(int32_t));

// Flash-decoding combine: row's output = merge of partial slots [partBase, +numParts).
struct CombineItem {
  int32_t row, partBase, numParts, pad;
};
static_assert(sizeof(CombineItem) == 4 * sizeof(int32_t));

struct PlanLimits {
  int blockSize = 16;
  int numBlocks = 0;
  int maxPositions = 0;   // max_position_embeddings
  int vocabSize = 0;
  int rowsPerTile = 1;    // query rows per prompt-attention block
  int partitionSize = 512;  // keys per decode partition (split when the context is longer)
};

struct BatchPlan {
  int numRows = 0;
  std::vector<int32_t> tokenIds, positions, slots;  // [numRows]; slot = block * blockSize + offset
  std::vector<int32_t> logitRows;                   // rows whose logits are returned, in seq order
  std::vector<int32_t> blockTables;                 // the needed prefix of each seq's table
  std::vector<AttnWork> single;                     // one-row items: decode tokens, 1-token chunks
  std::vector<AttnWork> tiles;                      // multi-row prompt tiles
  std::vector<CombineItem> combine;
  int numPartials = 0;
  int maxPartsPerRow = 1;
  bool decodeOnly = false;  // every slice is one token that needs logits (graph-eligible)
};

// Throws lwb::Error (validateBatch, shared with the CPU executor) naming the request and
// the value (token id, block id, position) when the batch is invalid; nothing has
// touched the device then.
BatchPlan planBatch(const ForwardBatch& batch, const PlanLimits& limits);

// Capacities of the metadata buffer and the offsets (in int32) of its sections.
struct MetaLayout {
  int rowsCap = 0, logitsCap = 0, btCap = 0, singleCap = 0, tilesCap = 0, combineCap = 0;
  // header: [0] numRows [1] numSingle [2] numTiles [3] numCombine [4] numLogits
  static constexpr int kHeaderInts = 8;
  int tokenIds = 0, positions = 0, slots = 0, logitRows = 0, blockTables = 0, single = 0, tiles = 0, combine = 0;
  int totalInts = 0;

  static MetaLayout withCapacities(int rows, int logits, int bt, int single, int tiles, int combine);
  bool fits(int rows, int logits, int bt, int numSingle, int numTiles, int numCombine) const;
};

// Writes `plan` into `dst` (MetaLayout::totalInts ints). Rows are padded to paddedRows
// (token 0, position 0, slot -1: no cache write) and logit rows to paddedLogits (row 0),
// which is how a graph captured for a bigger bucket runs a smaller batch.
void writeMeta(const BatchPlan& plan, const MetaLayout& layout, int paddedRows, int paddedLogits, int32_t* dst);

}  // namespace lwb::cuda
