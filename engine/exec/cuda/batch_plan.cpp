#include "engine/exec/cuda/batch_plan.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/common/error.h"
#include "engine/exec/batch_check.h"

namespace lwb::cuda {
namespace {

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
  validateBatch(batch, {lim.vocabSize, lim.maxPositions, lim.numBlocks, lim.blockSize});

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
