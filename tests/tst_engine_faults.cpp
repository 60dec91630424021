// Faults and knob changes on the tiny random model of tst_engine: a failed forward pass
// stays contained and leaves no prefix-cache hash on unwritten blocks; a live knob change
// applies at the next step; a structural one rebuilds, and a rejected or failed one
// leaves the previous knobs in force.
#include <QtTest>


#include "common/engine_fixture.h"
#include "engine/common/error.h"
#include "engine/engine.h"
#include "engine/engine_testing.h"
#include "engine/model/model.h"

using namespace lwb;
using namespace lwb::test;

class TestEngineFaults : public QObject {
  Q_OBJECT
  EngineFixture fx_;

 private slots:
  void initTestCase() { fx_.init(); }

  void executorErrorsAreContained() {
    Engine engine(fx_.model, knobs(2048, true, true));
    bool fail = true;
    EngineTesting::setBeforeForwardHook(engine, [&fail](const ForwardBatch&) {
      if (fail) throw Error("injected fault");
    });
    RequestId a = engine.addRequest(greedy(fx_.prompts[0]));
    StepOutput out = engine.step();
    QVERIFY(out.error.find("injected fault") != std::string::npos);
    QCOMPARE(int(engine.timeline(a)->finishReason), int(FinishReason::Error));
    QVERIFY(engine.timeline(a)->error.find("injected fault") != std::string::npos);
    fail = false;
    RequestId b = engine.addRequest(greedy(fx_.prompts[0]));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(std::vector<int>(engine.outputTokenIds(b)->begin() + long(fx_.prompts[0].size()), engine.outputTokenIds(b)->end()),
             fx_.baseline.tokens.at(1));
  }

  // The step that registered blocks at allocation fails (the writer and a request that
  // hit its blocks in that step): no hash survives on the unwritten blocks, so the same
  // prompt later misses and computes the reference tokens.
  void failedStepLeavesNoHashOnUnwrittenBlocks() {
    const std::vector<std::vector<int>> prompts = sharedHeadPrompts(2);
    Engine engine(fx_.model, knobs(2048, true, true));
    bool fail = true;
    EngineTesting::setBeforeForwardHook(engine, [&fail](const ForwardBatch&) {
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
    checkAgainstReference(*fx_.model, prompts[0], std::vector<int>(all.begin() + long(prompts[0].size()), all.end()));
  }

  // A decode step fails while its token fills a block: blocks written by earlier steps
  // stay cached, the block that token would have completed does not.
  void failedDecodeKeepsOnlyWrittenBlocks() {
    std::vector<int> prompt = sharedHeadPrompts(1)[0];
    prompt.resize(31);  // block 0 full, block 1 holds 15: the first decode fills it
    Engine engine(fx_.model, knobs(2048, true, true));
    int numForwards = 0;
    EngineTesting::setBeforeForwardHook(engine, [&numForwards](const ForwardBatch&) {
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
    checkAgainstReference(*fx_.model, longer, std::vector<int>(all.begin() + long(longer.size()), all.end()));
  }

  // vLLM refuses chunked prefill off with a budget below max_model_len (a prompt must fit
  // one step) instead of rejecting requests later, possibly mid-generation.
  void chunkedPrefillOffWithASmallBudgetIsAConfigError() {
    EngineConfig c = knobs(32, false, true);
    c.maxModelLen = 0;  // the model's 256
    try {
      Engine engine(fx_.model, c);
      QFAIL("accepted max_num_batched_tokens 32 < max_model_len 256 without chunked prefill");
    } catch (const lwb::Error& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("max_num_batched_tokens (32)") != std::string::npos, e.what());
      QVERIFY2(what.find("max_model_len (256)") != std::string::npos, e.what());
    }
    Engine engine(fx_.model, knobs(2048, true, true));
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.setConfig(c));
    QCOMPARE(engine.config().maxNumBatchedTokens, 2048);  // the old knobs stay in force
    c.maxModelLen = 32;
    engine.setConfig(c);
    engine.step();  // non-structural knobs apply at the next step
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(greedy(fx_.prompts[4])));  // 61 tokens > 32
    RequestId ok = engine.addRequest(greedy({1, 5, 6}));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(ok)->numOutputTokens, kMaxTokens);
  }

  void structuralConfigChangeAbortsAndRebuilds() {
    Engine engine(fx_.model, knobs(2048, true, true, 64));
    RequestId id = engine.addRequest(greedy(fx_.prompts[0], 100));
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
    RequestId again = engine.addRequest(greedy(fx_.prompts[0]));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(again)->numOutputTokens, kMaxTokens);
  }

  // The scheduler reads the engine's config in force: a live change shows in the next
  // step's plan (budget), and prefix caching turned off and on again stops and resumes
  // lookups.
  void liveKnobChangeAppliesAtTheNextStep() {
    Engine engine(fx_.model, knobs(16, true, true));
    const std::vector<int>& prompt = fx_.prompts[3];  // 46 tokens
    engine.addRequest(greedy(prompt));
    QCOMPARE(engine.step().record.tokenBudget, 16);
    EngineConfig c = engine.config();
    c.maxNumBatchedTokens = 32;
    engine.setConfig(c);
    const StepRecord next = engine.step().record;
    QCOMPARE(next.tokenBudget, 32);
    QCOMPARE(next.numPrefillTokens, int(prompt.size()) - 16);
    while (engine.hasUnfinishedRequests()) engine.step();
    c.enablePrefixCaching = false;
    engine.setConfig(c);
    const RequestId off = engine.addRequest(greedy(prompt));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(off)->numCachedPromptTokens, 0);
    c.enablePrefixCaching = true;
    engine.setConfig(c);
    const RequestId on = engine.addRequest(greedy(prompt));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(on)->numCachedPromptTokens, 32);  // the first run's 2 full prompt blocks
  }

  // A structural change that fails while rebuilding (no whole KV block fits) rolls back:
  // the old knobs stay in force, for the scheduler too, and the engine keeps serving.
  void failedStructuralChangeKeepsTheOldKnobsInForce() {
    Engine engine(fx_.model, knobs(64, true, true, 64));
    EngineConfig c = engine.config();
    c.numGpuBlocksOverride = 0;
    c.kvCacheMemoryBytes = 1;     // structural, valid, but no whole block fits
    c.maxNumBatchedTokens = 32;   // a live knob in the same change
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.setConfig(c));
    QCOMPARE(engine.config().maxNumBatchedTokens, 64);
    QCOMPARE(engine.config().kvCacheMemoryBytes, int64_t(0));
    QCOMPARE(engine.numKvBlocks(), 64);
    const RequestId id = engine.addRequest(greedy(fx_.prompts[5]));  // 50 tokens: one step at 64
    const StepRecord first = engine.step().record;
    QCOMPARE(first.tokenBudget, 64);
    QCOMPARE(first.numPrefillTokens, int(fx_.prompts[5].size()));
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(*engine.outputTokenIds(id),
             [&] {
               std::vector<int> all = fx_.prompts[5];
               const auto& out = fx_.baseline.tokens.at(6);
               all.insert(all.end(), out.begin(), out.end());
               return all;
             }());
  }
};

QTEST_GUILESS_MAIN(TestEngineFaults)
#include "tst_engine_faults.moc"
