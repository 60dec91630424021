#pragma once
// What the engine tests (tst_engine, tst_engine_requests, tst_engine_faults) share: a
// tiny random Llama with peaked logits, six prompts (half share a 40-token head) and
// their greedy baseline run, the knobs the tests vary, a run-to-completion driver, and
// the check of greedy outputs against the float64 reference forward.
#include <map>
#include <memory>
#include <vector>

#include <QTemporaryDir>

#include "engine/engine.h"

namespace lwb {
struct Model;
}

namespace lwb::test {

constexpr int kMaxTokens = 10;  // per request, unless a test says otherwise

using Outputs = std::map<RequestId, std::vector<int>>;

struct RunResult {
  Outputs tokens;  // generated ids per request
  std::map<RequestId, FinishReason> reasons;
  EngineTotals totals;
  std::vector<StepRecord> steps;
  int numOwnedAtEnd = 0;  // KV blocks still owned when everything finished
};

// Greedy, ignore_eos, `maxTokens` tokens.
RequestInput greedy(const std::vector<int>& prompt, int maxTokens = kMaxTokens);

// A CPU engine (2 threads) with these scheduling knobs; budget >= max_num_seqs, and
// without chunking max_model_len <= budget, as vLLM requires.
EngineConfig knobs(int budget, bool chunked, bool caching, int blocks = 0);

// Runs every prompt to completion on a fresh engine.
RunResult runAll(std::shared_ptr<const Model> model, const EngineConfig& config,
                 const std::vector<std::vector<int>>& prompts);

// Greedy `got` (generated after `prompt`) equals the float64 reference's argmax, up to
// the first near-tie (where either token is right and the paths may part). QtTest
// failures; check QTest::currentTestFailed() after it.
void checkAgainstReference(const Model& model, std::vector<int> seq, const std::vector<int>& got);

// `n` prompts: a 64-token head (4 blocks of 16) shared by all, then distinct tails.
std::vector<std::vector<int>> sharedHeadPrompts(int n);

// The model, the prompts and the baseline (all prompts at budget 2048, chunked,
// caching on: they are admitted in one step, prompts 0, 2, 4 sharing 2 blocks).
struct EngineFixture {
  QTemporaryDir dir;
  std::shared_ptr<const Model> model;
  std::vector<std::vector<int>> prompts;
  RunResult baseline;

  void init();  // call from initTestCase()
};

}  // namespace lwb::test
