// Engine::step on a real tiny random model (CPU executor): greedy outputs do not depend
// on scheduling (budgets, chunking, prefix caching, preemption) and equal the naive
// double-precision reference; the mechanisms engage (prefix sharing within one step
// too); errors stay contained and leave no prefix-cache hash on unwritten blocks.
#include <QtTest>

#include <algorithm>
#include <map>
#include <numeric>

#include "common/random_model.h"
#include "common/reference_llama.h"
#include "engine/common/error.h"
#include "engine/engine.h"
#include "engine/model/model.h"

using namespace lwb;

namespace {

constexpr int kMaxTokens = 10;

using Outputs = std::map<RequestId, std::vector<int>>;

struct RunResult {
  Outputs tokens;
  std::map<RequestId, FinishReason> reasons;
  EngineTotals totals;
  std::vector<StepRecord> steps;
  int numOwnedAtEnd = 0;
};

RequestInput greedy(const std::vector<int>& prompt, int maxTokens = kMaxTokens) {
  RequestInput in;
  in.promptTokenIds = prompt;
  in.sampling.temperature = 0;
  in.sampling.maxTokens = maxTokens;
  in.sampling.ignoreEos = true;
  return in;
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

EngineConfig knobs(int budget, bool chunked, bool caching, int blocks = 0) {
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

// Greedy `got` (generated after `prompt`) equals the double reference's argmax, up
// to the first near-tie (where either token is right and the paths may part).
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

// `n` prompts: a 64-token head (4 blocks of 16) shared by all, then distinct tails.
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

}  // namespace

class TestEngine : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::shared_ptr<const Model> model_;
  std::vector<std::vector<int>> prompts_;
  RunResult baseline_;

 private slots:
  void initTestCase() {
    RandomModelSpec spec;
    spec.vocabSize = 512;
    spec.maxPositionEmbeddings = 256;
    spec.scale = 0.3f;  // peaked logits: fewer near-ties against the reference
    model_ = loadModel(writeRandomLlamaModel(dir_.filePath("m").toStdString(), spec));
    std::vector<int> shared;  // a 40-token head shared by half of the prompts
    for (int i = 0; i < 40; ++i) shared.push_back(3 + (i * 37) % 250);
    const int tails[] = {3, 9, 17, 30, 1, 24};
    for (int p = 0; p < 6; ++p) {
      std::vector<int> prompt = p % 2 ? std::vector<int>{1} : shared;
      for (int i = 0; i < tails[p] + 5 * p; ++i) prompt.push_back(3 + (p * 31 + i * 7) % 250);
      prompts_.push_back(prompt);
    }
    baseline_ = runAll(model_, knobs(2048, true, true), prompts_);
    QCOMPARE(int(baseline_.tokens.size()), 6);
  }

  // The baseline admits all prompts in one step: prompts 0, 2, 4 share 2 blocks then.
  void greedyMatchesTheReference() {
    QCOMPARE(baseline_.steps.front().prefixHitTokens, int64_t(2 * 32));
    for (size_t p = 0; p < prompts_.size(); ++p) {
      checkAgainstReference(*model_, prompts_[p], baseline_.tokens.at(RequestId(p + 1)));
      if (QTest::currentTestFailed()) return;
    }
  }

  // Prompts arriving together share the first one's blocks in the step that computes
  // them (registered at allocation, vLLM V1); outputs equal running them one by one.
  void sameStepSharingMatchesOneByOneAndTheReference() {
    const std::vector<std::vector<int>> prompts = sharedHeadPrompts(4);
    RunResult together = runAll(model_, knobs(2048, true, true), prompts);
    QCOMPARE(together.steps.front().prefixHitTokens, int64_t(3 * 64));
    QCOMPARE(together.totals.prefixHitTokens, int64_t(3 * 64));
    QCOMPARE(together.numOwnedAtEnd, 0);
    for (size_t p = 0; p < prompts.size(); ++p) {
      RunResult alone = runAll(model_, knobs(2048, true, true), {prompts[p]});
      QCOMPARE(alone.totals.prefixHitTokens, int64_t(0));
      QCOMPARE(together.tokens.at(RequestId(p + 1)), alone.tokens.at(1));
      checkAgainstReference(*model_, prompts[p], together.tokens.at(RequestId(p + 1)));
      if (QTest::currentTestFailed()) return;
    }
    // Chunked: the first prompt's chunk fills 2 blocks, the next one hits those only.
    RunResult chunked = runAll(model_, knobs(48, true, true), prompts);
    for (size_t p = 0; p < prompts.size(); ++p) QCOMPARE(chunked.tokens.at(RequestId(p + 1)), together.tokens.at(RequestId(p + 1)));
    QVERIFY(chunked.totals.prefixHitTokens > 0);
  }

  void greedyOutputsDoNotDependOnScheduling_data() {
    QTest::addColumn<int>("budget");
    QTest::addColumn<bool>("chunked");
    QTest::addColumn<bool>("caching");
    QTest::addColumn<int>("blocks");
    for (int budget : {16, 64, 2048})
      for (bool caching : {true, false}) QTest::addRow("chunked, budget %d, caching %d", budget, caching) << budget << true << caching << 0;
    QTest::addRow("no chunking, budget 128") << 128 << false << true << 0;
    QTest::addRow("no chunking, budget 2048, caching off") << 2048 << false << false << 0;
    QTest::addRow("tiny pool (preempts), budget 64") << 64 << true << true << 8;
    QTest::addRow("tiny pool (preempts), caching off") << 16 << true << false << 8;
  }
  void greedyOutputsDoNotDependOnScheduling() {
    QFETCH(int, budget);
    QFETCH(bool, chunked);
    QFETCH(bool, caching);
    QFETCH(int, blocks);
    RunResult r = runAll(model_, knobs(budget, chunked, caching, blocks), prompts_);
    QCOMPARE(r.tokens, baseline_.tokens);
    QCOMPARE(r.numOwnedAtEnd, 0);
    for (const auto& [id, reason] : r.reasons) QCOMPARE(int(reason), int(FinishReason::Length));
    for (const StepRecord& s : r.steps) QVERIFY(s.numPrefillTokens + s.numDecodeTokens <= budget);
    if (blocks > 0) QVERIFY2(r.totals.preemptions > 0, "the small pool should have forced preemption");
    if (!caching) QCOMPARE(r.totals.prefixHitTokens, int64_t(0));
  }

  void sharedPrefixesHitTheCache() {
    Engine engine(model_, knobs(2048, true, true));
    engine.addRequest(greedy(prompts_[0]));
    while (engine.hasUnfinishedRequests()) engine.step();
    RequestId second = engine.addRequest(greedy(prompts_[2]));  // shares 40 tokens = 2 blocks
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(second)->numCachedPromptTokens, 32);
    QCOMPARE(engine.totals().prefixHitTokens, int64_t(32));
    QCOMPARE(*engine.outputTokenIds(second),
             [&] {
               std::vector<int> all = prompts_[2];
               const auto& out = baseline_.tokens.at(3);
               all.insert(all.end(), out.begin(), out.end());
               return all;
             }());
  }

  // vLLM refuses chunked prefill off with a budget below max_model_len (a prompt must fit
  // one step) instead of rejecting requests later, possibly mid-generation.
  void chunkedPrefillOffWithASmallBudgetIsAConfigError() {
    EngineConfig c = knobs(32, false, true);
    c.maxModelLen = 0;  // the model's 256
    try {
      Engine engine(model_, c);
      QFAIL("accepted max_num_batched_tokens 32 < max_model_len 256 without chunked prefill");
    } catch (const lwb::Error& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("max_num_batched_tokens (32)") != std::string::npos, e.what());
      QVERIFY2(what.find("max_model_len (256)") != std::string::npos, e.what());
    }
    Engine engine(model_, knobs(2048, true, true));
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.setConfig(c));
    QCOMPARE(engine.config().maxNumBatchedTokens, 2048);  // the old knobs stay in force
    c.maxModelLen = 32;
    engine.setConfig(c);
    engine.step();  // non-structural knobs apply at the next step
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(greedy(prompts_[4])));  // 61 tokens > 32
    RequestId ok = engine.addRequest(greedy({1, 5, 6}));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(ok)->numOutputTokens, kMaxTokens);
  }

  // A long-running caller forgets finished requests and keeps no step history: nothing
  // about a released request stays behind, and the step count still advances.
  void releasedRequestsAndStepHistoryLeaveNothingBehind() {
    Engine engine(model_, knobs(2048, true, true));
    engine.setKeepStepHistory(false);
    const RequestId a = engine.addRequest(greedy(prompts_[0]));
    const RequestId b = engine.addRequest(greedy(prompts_[1]));
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.releaseRequest(a));  // still running
    std::vector<RequestId> finished;
    while (engine.hasUnfinishedRequests()) {
      StepOutput out = engine.step();
      for (RequestId id : out.newlyFinished) {
        QVERIFY(engine.timeline(id) != nullptr);
        engine.releaseRequest(id);
        QVERIFY(engine.timeline(id) == nullptr);
        QVERIFY(engine.outputTokenIds(id) == nullptr);
        finished.push_back(id);
      }
    }
    std::sort(finished.begin(), finished.end());
    QCOMPARE(finished, (std::vector<RequestId>{a, b}));
    QVERIFY(engine.allTimelines().empty());
    QVERIFY(engine.steps().empty());
    QVERIFY(engine.numSteps() >= kMaxTokens);
    engine.releaseRequest(a);  // unknown now: ignored
    // Ids are never reused after a release.
    QVERIFY(engine.addRequest(greedy({1, 5, 6})) > b);
  }

  void invalidRequestsThrow() {
    Engine engine(model_, knobs(2048, true, true));
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(greedy({})));
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(greedy({1, 9999})));
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(greedy(std::vector<int>(256, 5))));
  }

  void stopTokenIdsAndLogprobs() {
    Engine engine(model_, knobs(2048, true, true));
    const std::vector<int>& ref = baseline_.tokens.at(1);
    RequestInput in = greedy(prompts_[0]);
    in.sampling.stopTokenIds = {ref[3]};
    in.sampling.logprobs = 3;
    RequestId id = engine.addRequest(in);
    std::vector<TokenDelta> deltas;
    while (engine.hasUnfinishedRequests())
      for (TokenDelta& d : engine.step().deltas) deltas.push_back(d);
    const auto firstStop = std::find(ref.begin(), ref.end(), ref[3]) - ref.begin();
    QCOMPARE(engine.timeline(id)->numOutputTokens, int(firstStop) + 1);
    QCOMPARE(int(engine.timeline(id)->finishReason), int(FinishReason::Stop));
    QCOMPARE(int(deltas.front().newLogprobs.size()), 1);
    QCOMPARE(deltas.front().newLogprobs[0][0].first, ref[0]);  // greedy: the best is the sampled token
    QCOMPARE(int(deltas.front().newLogprobs[0].size()), 3);
  }

  // min_tokens (vLLM): no stop token can be sampled before it (masked), so a stop id that
  // greedy decoding would pick first is replaced by the next best token.
  void minTokensHoldsBackStopTokens() {
    Engine engine(model_, knobs(2048, true, true));
    const std::vector<int>& ref = baseline_.tokens.at(1);
    RequestInput in = greedy(prompts_[0], 6);
    in.sampling.stopTokenIds = {ref[0]};
    in.sampling.minTokens = 4;
    const RequestId id = engine.addRequest(in);
    while (engine.hasUnfinishedRequests()) engine.step();
    const std::vector<int>& all = *engine.outputTokenIds(id);
    const std::vector<int> out(all.begin() + long(prompts_[0].size()), all.end());
    QVERIFY(out.size() >= 4);
    QVERIFY(std::find(out.begin(), out.begin() + 4, ref[0]) == out.begin() + 4);
    RequestInput bad = greedy(prompts_[0], 3);
    bad.sampling.minTokens = 4;  // more than max_tokens
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(bad));
  }

  // check_stop order: a stop token at the max_tokens-th token is a stop, not a length
  // finish; a stop string completed by that token is a stop too.
  void stopWinsOverLengthOnTheLastToken() {
    const std::vector<int>& ref = baseline_.tokens.at(1);
    const long firstAt = std::find(ref.begin(), ref.end(), ref[2]) - ref.begin();
    QCOMPARE(firstAt, 2L);  // the baseline's third token is new (the fixture's seed)
    Engine engine(model_, knobs(2048, true, true));
    RequestInput in = greedy(prompts_[0], 3);
    in.sampling.stopTokenIds = {ref[2]};
    const RequestId byId = engine.addRequest(in);
    // The text the third token adds, as a stop string.
    RequestInput two = greedy(prompts_[0], 2), three = greedy(prompts_[0], 3);
    const RequestId id2 = engine.addRequest(two), id3 = engine.addRequest(three);
    std::map<RequestId, std::string> text;
    while (engine.hasUnfinishedRequests())
      for (const TokenDelta& d : engine.step().deltas) text[d.id] += d.newText;
    QCOMPARE(engine.timeline(byId)->numOutputTokens, 3);
    QCOMPARE(int(engine.timeline(byId)->finishReason), int(FinishReason::Stop));
    QCOMPARE(int(engine.timeline(id3)->finishReason), int(FinishReason::Length));
    QVERIFY(text[id3].size() > text[id2].size() && text[id3].rfind(text[id2], 0) == 0);
    const std::string added = text[id3].substr(text[id2].size());
    QVERIFY2(text[id2].find(added) == std::string::npos, added.c_str());
    RequestInput byString = greedy(prompts_[0], 3);
    byString.sampling.stop = {added};
    const RequestId s = engine.addRequest(byString);
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(s)->numOutputTokens, 3);
    QCOMPARE(int(engine.timeline(s)->finishReason), int(FinishReason::Stop));
  }

  // Every finished request is recorded, aborted ones included; request_success counts
  // them per finish_reason; prompt tokens are counted at a request's first token.
  void abortedRequestsAreInTheMetrics() {
    Engine engine(model_, knobs(2048, true, true));
    const RequestId waiting = engine.addRequest(greedy(prompts_[0]));
    engine.abortRequest(waiting);
    const RequestId done = engine.addRequest(greedy(prompts_[1], 1));
    while (engine.hasUnfinishedRequests()) engine.step();
    const RequestTimeline& w = *engine.timeline(waiting);
    QCOMPARE(int(w.finishReason), int(FinishReason::Abort));
    QVERIFY(w.e2e().has_value());
    QCOMPARE(*w.tpot(), 0.0);
    QVERIFY(!w.ttft());
    const RequestTimeline& d = *engine.timeline(done);
    QCOMPARE(*d.tpot(), 0.0);  // one token: no decode
    QCOMPARE(*d.e2e(), *d.finishTime - d.arrivalTime);
    const EngineTotals t = engine.totals();
    QCOMPARE(t.requestSuccess[size_t(FinishReason::Abort)], int64_t(1));
    QCOMPARE(t.requestSuccess[size_t(FinishReason::Length)], int64_t(1));
    QCOMPARE(t.promptTokens, int64_t(prompts_[1].size()));
    QCOMPARE(t.generatedTokens, int64_t(1));
  }

  void abortFreesBlocks() {
    Engine engine(model_, knobs(2048, true, true));
    RequestId id = engine.addRequest(greedy(prompts_[0], 100));
    engine.step();
    engine.abortRequest(id);
    StepOutput out = engine.step();
    QCOMPARE(out.newlyFinished, std::vector<RequestId>{id});
    QCOMPARE(int(engine.timeline(id)->finishReason), int(FinishReason::Abort));
    for (const KvBlockInfo& b : engine.kvBlocks()) QCOMPARE(b.refCount, 0);
    QVERIFY(!engine.hasUnfinishedRequests());
  }

  void executorErrorsAreContained() {
    Engine engine(model_, knobs(2048, true, true));
    bool fail = true;
    engine.setBeforeForwardHookForTesting([&fail](const ForwardBatch&) {
      if (fail) throw Error("injected fault");
    });
    RequestId a = engine.addRequest(greedy(prompts_[0]));
    StepOutput out = engine.step();
    QVERIFY(out.error.find("injected fault") != std::string::npos);
    QCOMPARE(int(engine.timeline(a)->finishReason), int(FinishReason::Error));
    QVERIFY(engine.timeline(a)->error.find("injected fault") != std::string::npos);
    fail = false;
    RequestId b = engine.addRequest(greedy(prompts_[0]));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(std::vector<int>(engine.outputTokenIds(b)->begin() + long(prompts_[0].size()), engine.outputTokenIds(b)->end()),
             baseline_.tokens.at(1));
  }

  // The step that registered blocks at allocation fails (the writer and a request that
  // hit its blocks in that step): no hash survives on the unwritten blocks, so the same
  // prompt later misses and computes the reference tokens.
  void failedStepLeavesNoHashOnUnwrittenBlocks() {
    const std::vector<std::vector<int>> prompts = sharedHeadPrompts(2);
    Engine engine(model_, knobs(2048, true, true));
    bool fail = true;
    engine.setBeforeForwardHookForTesting([&fail](const ForwardBatch&) {
      if (fail) throw Error("injected fault");
    });
    engine.addRequest(greedy(prompts[0]));
    engine.addRequest(greedy(prompts[1]));
    StepOutput out = engine.step();
    QVERIFY(out.error.find("injected fault") != std::string::npos);
    QCOMPARE(out.record.prefixHitTokens, int64_t(64));  // the 2nd hit the 1st's blocks
    for (const KvBlockInfo& b : engine.kvBlocks()) {
      QVERIFY(!b.hasHash);
      QCOMPARE(b.refCount, 0);
    }
    fail = false;
    RequestId again = engine.addRequest(greedy(prompts[0]));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(again)->numCachedPromptTokens, 0);
    const std::vector<int>& all = *engine.outputTokenIds(again);
    checkAgainstReference(*model_, prompts[0], std::vector<int>(all.begin() + long(prompts[0].size()), all.end()));
  }

  // A decode step fails while its token fills a block: blocks written by earlier steps
  // stay cached, the block that token would have completed does not.
  void failedDecodeKeepsOnlyWrittenBlocks() {
    std::vector<int> prompt = sharedHeadPrompts(1)[0];
    prompt.resize(31);  // block 0 full, block 1 holds 15: the first decode fills it
    Engine engine(model_, knobs(2048, true, true));
    int numForwards = 0;
    engine.setBeforeForwardHookForTesting([&numForwards](const ForwardBatch&) {
      if (++numForwards == 2) throw Error("injected fault");
    });
    RequestId a = engine.addRequest(greedy(prompt));
    engine.step();
    QVERIFY(!engine.step().error.empty());
    QCOMPARE(int(engine.timeline(a)->finishReason), int(FinishReason::Error));
    int numHashed = 0;
    for (const KvBlockInfo& b : engine.kvBlocks())
      if (b.hasHash) {
        ++numHashed;
        QCOMPARE(b.firstTokenPos, 0);
      }
    QCOMPARE(numHashed, 1);
    std::vector<int> longer = *engine.outputTokenIds(a);  // prompt + the token of step 1
    longer.push_back(5);
    RequestId b = engine.addRequest(greedy(longer));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(b)->numCachedPromptTokens, 16);
    const std::vector<int>& all = *engine.outputTokenIds(b);
    checkAgainstReference(*model_, longer, std::vector<int>(all.begin() + long(longer.size()), all.end()));
  }

  void structuralConfigChangeAbortsAndRebuilds() {
    Engine engine(model_, knobs(2048, true, true, 64));
    RequestId id = engine.addRequest(greedy(prompts_[0], 100));
    engine.step();
    EngineConfig c = engine.config();
    c.blockSize = 8;
    c.numGpuBlocksOverride = 100;
    engine.setConfig(c);
    QCOMPARE(engine.numKvBlocks(), 100);
    QCOMPARE(int(engine.timeline(id)->finishReason), int(FinishReason::Abort));
    EngineConfig bad = c;
    bad.blockSize = 3;
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.setConfig(bad));
    RequestId again = engine.addRequest(greedy(prompts_[0]));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(again)->numOutputTokens, kMaxTokens);
  }
};

QTEST_GUILESS_MAIN(TestEngine)
#include "tst_engine.moc"
