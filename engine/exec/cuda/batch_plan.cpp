#include "engine/exec/cuda/batch_plan.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/common/error.h"

namespace lwb::cuda {
namespace {

std::string sliceName(size_t i, const SeqSlice& s) {
  return "CUDA forward: seq " + std::to_string(i) + " (request " + std::to_string(s.requestId) + ")";
}

void validateSlice(size_t i, const SeqSlice& s, int expectedFirstRow, const ForwardBatch& batch,
                   const PlanLimits& lim) {
  const std::string name = sliceName(i, s);
  check(s.firstRow == expectedFirstRow, name + ": firstRow " + std::to_string(s.firstRow) + ", expected " +
                                            std::to_string(expectedFirstRow) + " (slices must be in row order)");
  check(s.numTokens >= 1 && s.firstRow + s.numTokens <= batch.numRows(),
        name + ": numTokens " + std::to_string(s.numTokens) + " out of range for " +
            std::to_string(batch.numRows()) + " rows");
  check(s.numCachedTokens >= 0, name + ": negative numCachedTokens");
  check(!s.needLogits || (s.numLogits >= 1 && s.numLogits <= s.numTokens),
        name + ": numLogits " + std::to_string(s.numLogits) + " out of range 1.." + std::to_string(s.numTokens));
  const int64_t ctx = int64_t(s.numCachedTokens) + s.numTokens;
  check(ctx <= lim.maxPositions, name + ": positions up to " + std::to_string(ctx - 1) +
                                     " exceed max_position_embeddings " + std::to_string(lim.maxPositions));
  const int64_t needBlocks = (ctx + lim.blockSize - 1) / lim.blockSize;
  check(int64_t(s.blockTable.size()) >= needBlocks, name + ": block table has " +
                                                        std::to_string(s.blockTable.size()) + " blocks, " +
                                                        std::to_string(needBlocks) + " needed");
  for (int64_t b = 0; b < needBlocks; ++b) {
    const int32_t id = s.blockTable[size_t(b)];
    check(id >= 0 && id < lim.numBlocks, name + ": block id " + std::to_string(id) + " out of range [0, " +
                                             std::to_string(lim.numBlocks) + ")");
  }
  for (int r = s.firstRow; r < s.firstRow + s.numTokens; ++r) {
    const int32_t t = batch.tokenIds[size_t(r)];
    check(t >= 0 && t < lim.vocabSize, name + ": token id " + std::to_string(t) + " at row " + std::to_string(r) +
                                           " out of range [0, " + std::to_string(lim.vocabSize) + ")");
  }
}

void addAttentionWork(const SeqSlice& s, int32_t btOffset, const PlanLimits& lim, BatchPlan& plan) {
  const int32_t p0 = s.numCachedTokens, ctx = p0 + s.numTokens;
  if (s.numTokens == 1) {
    const int parts = (ctx + lim.partitionSize - 1) / lim.partitionSize;
    if (parts <= 1) {
      plan.single.push_back({btOffset, s.firstRow, 1, p0, 0, ctx, -1, 0});
      return;
    }
    const int base = plan.numPartials;
    for (int q = 0; q < parts; ++q) {
      const int32_t begin = q * lim.partitionSize, end = std::min(ctx, (q + 1) * lim.partitionSize);
      plan.single.push_back({btOffset, s.firstRow, 1, p0, begin, end, base + q, 0});
    }
    plan.combine.push_back({s.firstRow, base, parts, 0});
    plan.numPartials += parts;
    plan.maxPartsPerRow = std::max(plan.maxPartsPerRow, parts);
    return;
  }
  for (int t0 = 0; t0 < s.numTokens; t0 += lim.rowsPerTile) {
    const int m = std::min(lim.rowsPerTile, s.numTokens - t0);
    plan.tiles.push_back({btOffset, s.firstRow + t0, m, p0 + t0, 0, p0 + t0 + m, -1, 0});
  }
}

}  // namespace

BatchPlan planBatch(const ForwardBatch& batch, const PlanLimits& lim) {
  check(lim.blockSize > 0 && lim.rowsPerTile > 0 && lim.partitionSize > 0, "CUDA forward: bad plan limits");
  BatchPlan plan;
  plan.numRows = batch.numRows();
  int row = 0;
  for (size_t i = 0; i < batch.seqs.size(); ++i) {
    validateSlice(i, batch.seqs[i], row, batch, lim);
    row += batch.seqs[i].numTokens;
  }
  check(row == plan.numRows, "CUDA forward: slices cover " + std::to_string(row) + " of " +
                                 std::to_string(plan.numRows) + " rows");

  plan.decodeOnly = !batch.seqs.empty();
  for (const SeqSlice& s : batch.seqs) {
    const int32_t btOffset = int32_t(plan.blockTables.size());
    const int ctx = s.numCachedTokens + s.numTokens;
    const int needBlocks = (ctx + lim.blockSize - 1) / lim.blockSize;
    plan.blockTables.insert(plan.blockTables.end(), s.blockTable.begin(), s.blockTable.begin() + needBlocks);
    for (int i = 0; i < s.numTokens; ++i) {
      const int pos = s.numCachedTokens + i;
      plan.tokenIds.push_back(batch.tokenIds[size_t(s.firstRow + i)]);
      plan.positions.push_back(pos);
      plan.slots.push_back(s.blockTable[size_t(pos / lim.blockSize)] * lim.blockSize + pos % lim.blockSize);
    }
    if (s.needLogits)
      for (int j = s.numLogits; j >= 1; --j) plan.logitRows.push_back(s.firstRow + s.numTokens - j);
    plan.decodeOnly = plan.decodeOnly && s.numTokens == 1 && s.needLogits;
    addAttentionWork(s, btOffset, lim, plan);
  }
  return plan;
}

MetaLayout MetaLayout::withCapacities(int rows, int logits, int bt, int single, int tiles, int combine) {
  MetaLayout m;
  m.rowsCap = rows;
  m.logitsCap = logits;
  m.btCap = bt;
  m.singleCap = single;
  m.tilesCap = tiles;
  m.combineCap = combine;
  int at = kHeaderInts;
  auto take = [&at](int n) {
    const int start = at;
    at += (n + 3) / 4 * 4;  // 16-byte aligned sections
    return start;
  };
  m.tokenIds = take(rows);
  m.positions = take(rows);
  m.slots = take(rows);
  m.logitRows = take(logits);
  m.blockTables = take(bt);
  m.single = take(single * 8);
  m.tiles = take(tiles * 8);
  m.combine = take(combine * 4);
  m.totalInts = at;
  return m;
}

bool MetaLayout::fits(int rows, int logits, int bt, int numSingle, int numTiles, int numCombine) const {
  return rows <= rowsCap && logits <= logitsCap && bt <= btCap && numSingle <= singleCap && numTiles <= tilesCap &&
         numCombine <= combineCap;
}

void writeMeta(const BatchPlan& plan, const MetaLayout& m, int paddedRows, int paddedLogits, int32_t* dst) {
  const int numLogits = int(plan.logitRows.size());
  check(paddedRows >= plan.numRows && paddedLogits >= numLogits &&
            m.fits(paddedRows, paddedLogits, int(plan.blockTables.size()), int(plan.single.size()),
                   int(plan.tiles.size()), int(plan.combine.size())),
        "CUDA forward: metadata buffer too small (internal error)");
  std::fill(dst, dst + MetaLayout::kHeaderInts, 0);
  dst[0] = plan.numRows;
  dst[1] = int32_t(plan.single.size());
  dst[2] = int32_t(plan.tiles.size());
  dst[3] = int32_t(plan.combine.size());
  dst[4] = numLogits;
  auto put = [dst](int offset, const std::vector<int32_t>& v, int padTo, int32_t padValue) {
    std::copy(v.begin(), v.end(), dst + offset);
    std::fill(dst + offset + v.size(), dst + offset + padTo, padValue);
  };
  put(m.tokenIds, plan.tokenIds, paddedRows, 0);
  put(m.positions, plan.positions, paddedRows, 0);
  put(m.slots, plan.slots, paddedRows, -1);
  put(m.logitRows, plan.logitRows, paddedLogits, 0);
  std::copy(plan.blockTables.begin(), plan.blockTables.end(), dst + m.blockTables);
  auto copyStructs = [dst](int offset, const auto& v) {
    if (!v.empty()) std::memcpy(dst + offset, v.data(), v.size() * sizeof(v[0]));
  };
  copyStructs(m.single, plan.single);
  copyStructs(m.tiles, plan.tiles);
  copyStructs(m.combine, plan.combine);
}

}  // namespace lwb::cuda
