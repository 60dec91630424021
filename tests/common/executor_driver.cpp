#include "common/executor_driver.h"

#include <algorithm>

namespace lwb::test {

SeqSlice sliceFor(const Seq& s, int firstRow, int numTokens, bool needLogits) {
  return {s.id, firstRow, numTokens, s.numComputed, s.blocks, needLogits};
}

std::vector<std::vector<float>> runSchedule(Executor& ex, std::vector<Seq> seqs, const Schedule& schedule,
                                            const std::vector<int>& logitsFrom) {
  std::vector<std::vector<float>> out(seqs.size());
  for (const std::vector<int>& step : schedule) {
    ForwardBatch batch;
    std::vector<size_t> who;
    for (size_t r = 0; r < seqs.size(); ++r) {
      if (step[r] == 0) continue;
      Seq& s = seqs[r];
      const int end = s.numComputed + step[r];
      batch.seqs.push_back(sliceFor(s, batch.numRows(), step[r], end >= logitsFrom[r]));
      batch.tokenIds.insert(batch.tokenIds.end(), s.tokens.begin() + s.numComputed, s.tokens.begin() + end);
      if (batch.seqs.back().needLogits) who.push_back(r);
    }
    ForwardResult res;
    ex.forward(batch, res);
    for (size_t i = 0; i < who.size(); ++i)
      out[who[i]].insert(out[who[i]].end(), res.row(int(i)), res.row(int(i)) + res.vocabSize);
    for (size_t r = 0; r < seqs.size(); ++r) seqs[r].numComputed += step[r];
  }
  return out;
}

std::vector<int> greedyIds(Executor& ex, std::vector<int> tokens, int n) {
  const int blockSize = 16, numBlocks = (int(tokens.size()) + n) / blockSize + 1;
  ex.allocateKvCache(numBlocks + 1, blockSize);
  std::vector<int32_t> blocks;
  for (int32_t b = 0; b < numBlocks; ++b) blocks.push_back(b);
  std::vector<int> out;
  int computed = 0;
  for (int step = 0; step < n; ++step) {
    ForwardBatch batch;
    const int num = int(tokens.size()) - computed;
    batch.tokenIds.assign(tokens.begin() + computed, tokens.end());
    batch.seqs.push_back({1, 0, num, computed, blocks, true});
    ForwardResult r;
    ex.forward(batch, r);
    const float* row = r.logits.data();
    const int next = int(std::max_element(row, row + r.vocabSize) - row);
    out.push_back(next);
    computed = int(tokens.size());
    tokens.push_back(next);
  }
  return out;
}

}  // namespace lwb::test
