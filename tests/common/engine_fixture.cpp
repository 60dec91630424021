#include "common/engine_fixture.h"

#include <QtTest>

#include <algorithm>
#include <numeric>

#include "common/random_model.h"
#include "common/reference_llama.h"
#include "engine/model/model.h"

namespace lwb::test {

RequestInput greedy(const std::vector<int>& prompt, int maxTokens) {
  RequestInput in;
  in.promptTokenIds = prompt;
  in.sampling.temperature = 0;
  in.sampling.maxTokens = maxTokens;
  in.sampling.ignoreEos = true;
  return in;
}

EngineConfig knobs(int budget, bool chunked, bool caching, int blocks) {
  EngineConfig c;
  c.maxNumBatchedTokens = budget;
  c.maxNumSeqs = std::min(128, budget);  // vLLM: budget >= max_num_seqs
  c.enableChunkedPrefill = chunked;
  if (!chunked && budget < 256) c.maxModelLen = budget;  // vLLM: a prompt must fit one step
  c.enablePrefixCaching = caching;
  c.numGpuBlocksOverride = blocks;
  c.executor.backend = "cpu";
  c.executor.numThreads = 2;
  return c;
}

RunResult runAll(std::shared_ptr<const Model> model, const EngineConfig& config,
                 const std::vector<std::vector<int>>& prompts) {
  Engine engine(model, config);
  RunResult res;
  for (const auto& p : prompts) engine.addRequest(greedy(p));
  for (int guard = 0; engine.hasUnfinishedRequests() && guard < 10000; ++guard) {
    StepOutput out = engine.step();
    if (!out.error.empty()) qWarning("step error: %s", out.error.c_str());
    for (const TokenDelta& d : out.deltas) {
      auto& v = res.tokens[d.id];
      v.insert(v.end(), d.newTokenIds.begin(), d.newTokenIds.end());
      if (d.finished) res.reasons[d.id] = d.finishReason;
      if (d.finishReason == FinishReason::Error) qWarning("request error: %s", engine.timeline(d.id)->error.c_str());
    }
  }
  res.totals = engine.totals();
  res.steps = engine.steps();
  for (const KvBlockInfo& b : engine.kvBlocks()) res.numOwnedAtEnd += b.kind == KvBlockInfo::Kind::Owned;
  return res;
}

void checkAgainstReference(const Model& model, std::vector<int> seq, const std::vector<int>& got) {
  QCOMPARE(int(got.size()), kMaxTokens);
  for (int t = 0; t < kMaxTokens; ++t) {
    std::vector<double> logits = referenceLastLogits(model, seq);
    std::vector<int> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 2, order.end(),
                      [&](int a, int b) { return logits[size_t(a)] > logits[size_t(b)]; });
    if (logits[size_t(order[0])] - logits[size_t(order[1])] < 1e-4) break;  // a near-tie: either is right
    QCOMPARE(got[size_t(t)], order[0]);
    seq.push_back(order[0]);
  }
}

std::vector<std::vector<int>> sharedHeadPrompts(int n) {
  std::vector<std::vector<int>> prompts;
  for (int p = 0; p < n; ++p) {
    std::vector<int> prompt{1};
    for (int i = 1; i < 64; ++i) prompt.push_back(3 + (i * 53) % 400);
    for (int i = 0; i < 2 + 5 * p; ++i) prompt.push_back(3 + (p * 97 + i * 11) % 400);
    prompts.push_back(prompt);
  }
  return prompts;
}

void EngineFixture::init() {
  RandomModelSpec spec;
  spec.vocabSize = 512;
  spec.maxPositionEmbeddings = 256;
  spec.scale = 0.3f;  // peaked logits: fewer near-ties against the reference
  model = loadModel(writeRandomLlamaModel(dir.filePath("m").toStdString(), spec));
  std::vector<int> shared;  // a 40-token head shared by half of the prompts
  for (int i = 0; i < 40; ++i) shared.push_back(3 + (i * 37) % 250);
  const int tails[] = {3, 9, 17, 30, 1, 24};
  for (int p = 0; p < 6; ++p) {
    std::vector<int> prompt = p % 2 ? std::vector<int>{1} : shared;
    for (int i = 0; i < tails[p] + 5 * p; ++i) prompt.push_back(3 + (p * 31 + i * 7) % 250);
    prompts.push_back(prompt);
  }
  baseline = runAll(model, knobs(2048, true, true), prompts);
  QCOMPARE(int(baseline.tokens.size()), 6);
}

}  // namespace lwb::test
