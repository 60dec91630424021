// Engine::step on a real tiny random model (CPU executor): greedy outputs do not depend
// on scheduling (budgets, chunking, prefix caching, preemption) and equal the float64
// reference forward; the mechanisms engage (prefix sharing within one step too).
// Requests are in tst_engine_requests, faults and knob changes in tst_engine_faults.
#include <QtTest>


#include "common/engine_fixture.h"
#include "engine/common/error.h"
#include "engine/engine.h"
#include "engine/model/model.h"

using namespace lwb;
using namespace lwb::test;

class TestEngine : public QObject {
  Q_OBJECT
  EngineFixture fx_;

 private slots:
  void initTestCase() { fx_.init(); }

  // The baseline admits all prompts in one step: prompts 0, 2, 4 share 2 blocks then.
  void greedyMatchesTheReference() {
    QCOMPARE(fx_.baseline.steps.front().prefixHitTokens, int64_t(2 * 32));
    for (size_t p = 0; p < fx_.prompts.size(); ++p) {
      checkAgainstReference(*fx_.model, fx_.prompts[p], fx_.baseline.tokens.at(RequestId(p + 1)));
      if (QTest::currentTestFailed()) return;
    }
  }

  // Prompts arriving together share the first one's blocks in the step that computes
  // them (registered at allocation, vLLM V1); outputs equal running them one by one.
  void sameStepSharingMatchesOneByOneAndTheReference() {
    const std::vector<std::vector<int>> prompts = sharedHeadPrompts(4);
    RunResult together = runAll(fx_.model, knobs(2048, true, true), prompts);
    QCOMPARE(together.steps.front().prefixHitTokens, int64_t(3 * 64));
    QCOMPARE(together.totals.prefixHitTokens, int64_t(3 * 64));
    QCOMPARE(together.numOwnedAtEnd, 0);
    for (size_t p = 0; p < prompts.size(); ++p) {
      RunResult alone = runAll(fx_.model, knobs(2048, true, true), {prompts[p]});
      QCOMPARE(alone.totals.prefixHitTokens, int64_t(0));
      QCOMPARE(together.tokens.at(RequestId(p + 1)), alone.tokens.at(1));
      checkAgainstReference(*fx_.model, prompts[p], together.tokens.at(RequestId(p + 1)));
      if (QTest::currentTestFailed()) return;
    }
    // Chunked: the first prompt's chunk fills 2 blocks, the next one hits those only.
    RunResult chunked = runAll(fx_.model, knobs(48, true, true), prompts);
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
    RunResult r = runAll(fx_.model, knobs(budget, chunked, caching, blocks), fx_.prompts);
    QCOMPARE(r.tokens, fx_.baseline.tokens);
    QCOMPARE(r.numOwnedAtEnd, 0);
    for (const auto& [id, reason] : r.reasons) QCOMPARE(int(reason), int(FinishReason::Length));
    for (const StepRecord& s : r.steps) QVERIFY(s.numPrefillTokens + s.numDecodeTokens <= budget);
    if (blocks > 0) QVERIFY2(r.totals.preemptions > 0, "the small pool should have forced preemption");
    if (!caching) QCOMPARE(r.totals.prefixHitTokens, int64_t(0));
  }

  void sharedPrefixesHitTheCache() {
    Engine engine(fx_.model, knobs(2048, true, true));
    engine.addRequest(greedy(fx_.prompts[0]));
    while (engine.hasUnfinishedRequests()) engine.step();
    RequestId second = engine.addRequest(greedy(fx_.prompts[2]));  // shares 40 tokens = 2 blocks
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(second)->numCachedPromptTokens, 32);
    QCOMPARE(engine.totals().prefixHitTokens, int64_t(32));
    QCOMPARE(*engine.outputTokenIds(second),
             [&] {
               std::vector<int> all = fx_.prompts[2];
               const auto& out = fx_.baseline.tokens.at(3);
               all.insert(all.end(), out.begin(), out.end());
               return all;
             }());
  }
};

QTEST_GUILESS_MAIN(TestEngine)
#include "tst_engine.moc"
