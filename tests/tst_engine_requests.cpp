// The engine's request lifecycle on the tiny random model of tst_engine: release and
// step history, invalid requests, stop token ids, logprobs, min_tokens, stop versus
// length on the last token, aborts (in the metrics, blocks freed); sampled rows drawn
// and detokenized concurrently give each request what it gets alone.
#include <QtTest>

#include <algorithm>
#include <map>

#include "common/bundled_model.h"
#include "common/engine_fixture.h"
#include "engine/common/error.h"
#include "engine/engine.h"
#include "engine/model/model.h"

using namespace lwb;
using namespace lwb::test;

class TestEngineRequests : public QObject {
  Q_OBJECT
  EngineFixture fx_;

 private slots:
  void initTestCase() { fx_.init(); }

  // A step's rows are sampled and detokenized on the executor's threads at once
  // (Engine::Impl::postprocess): each seeded request, run in a batch of six on two
  // threads, gets the tokens and the text it gets alone.
  void sampledRowsInABatchAreTheirOwn() {
    const std::shared_ptr<const Model> model = bundledModel();
    QVERIFY2(model != nullptr, kBundledModelMissing);
    EngineConfig config = cpuTestConfig();
    config.executor.numThreads = 2;
    std::vector<RequestInput> inputs;
    for (int i = 0; i < 6; ++i) {
      RequestInput in;
      in.promptTokenIds = model->tokenizer->encode(i % 2 ? "Elizabeth said" : "It is a truth universally");
      in.sampling.temperature = 1.0f;
      in.sampling.topP = i < 3 ? 1.0f : 0.9f;
      in.sampling.seed = 1000 + uint64_t(i);
      in.sampling.maxTokens = 24;
      inputs.push_back(in);
    }
    const auto run = [&](const std::vector<RequestInput>& batch) {
      Engine engine(model, config);
      std::vector<RequestId> ids;
      for (const RequestInput& in : batch) ids.push_back(engine.addRequest(in));
      std::map<RequestId, std::string> text;
      while (engine.hasUnfinishedRequests())
        for (const TokenDelta& d : engine.step().deltas) text[d.id] += d.newText;
      std::vector<std::pair<std::vector<int>, std::string>> out;
      for (RequestId id : ids) out.emplace_back(*engine.outputTokenIds(id), text[id]);
      return out;
    };
    const auto together = run(inputs);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto alone = run({inputs[i]});
      QCOMPARE(together[i].first, alone[0].first);
      QCOMPARE(together[i].second, alone[0].second);
      QVERIFY(!alone[0].second.empty());
    }
  }

  // A long-running caller forgets finished requests and keeps no step history: nothing
  // about a released request stays behind, and the step count still advances.
  void releasedRequestsAndStepHistoryLeaveNothingBehind() {
    Engine engine(fx_.model, knobs(2048, true, true));
    engine.setKeepStepHistory(false);
    const RequestId a = engine.addRequest(greedy(fx_.prompts[0]));
    const RequestId b = engine.addRequest(greedy(fx_.prompts[1]));
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
    Engine engine(fx_.model, knobs(2048, true, true));
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(greedy({})));
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(greedy({1, 9999})));
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(greedy(std::vector<int>(256, 5))));
  }

  void stopTokenIdsAndLogprobs() {
    Engine engine(fx_.model, knobs(2048, true, true));
    const std::vector<int>& ref = fx_.baseline.tokens.at(1);
    RequestInput in = greedy(fx_.prompts[0]);
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
    Engine engine(fx_.model, knobs(2048, true, true));
    const std::vector<int>& ref = fx_.baseline.tokens.at(1);
    RequestInput in = greedy(fx_.prompts[0], 6);
    in.sampling.stopTokenIds = {ref[0]};
    in.sampling.minTokens = 4;
    const RequestId id = engine.addRequest(in);
    while (engine.hasUnfinishedRequests()) engine.step();
    const std::vector<int>& all = *engine.outputTokenIds(id);
    const std::vector<int> out(all.begin() + long(fx_.prompts[0].size()), all.end());
    QVERIFY(out.size() >= 4);
    QVERIFY(std::find(out.begin(), out.begin() + 4, ref[0]) == out.begin() + 4);
    RequestInput bad = greedy(fx_.prompts[0], 3);
    bad.sampling.minTokens = 4;  // more than max_tokens
    QVERIFY_THROWS_EXCEPTION(lwb::Error, engine.addRequest(bad));
  }

  // check_stop order: a stop token at the max_tokens-th token is a stop, not a length
  // finish; a stop string completed by that token is a stop too.
  void stopWinsOverLengthOnTheLastToken() {
    const std::vector<int>& ref = fx_.baseline.tokens.at(1);
    const long firstAt = std::find(ref.begin(), ref.end(), ref[2]) - ref.begin();
    QCOMPARE(firstAt, 2L);  // the baseline's third token is new (the fixture's seed)
    Engine engine(fx_.model, knobs(2048, true, true));
    RequestInput in = greedy(fx_.prompts[0], 3);
    in.sampling.stopTokenIds = {ref[2]};
    const RequestId byId = engine.addRequest(in);
    // The text the third token adds, as a stop string.
    RequestInput two = greedy(fx_.prompts[0], 2), three = greedy(fx_.prompts[0], 3);
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
    RequestInput byString = greedy(fx_.prompts[0], 3);
    byString.sampling.stop = {added};
    const RequestId s = engine.addRequest(byString);
    while (engine.hasUnfinishedRequests()) engine.step();
    QCOMPARE(engine.timeline(s)->numOutputTokens, 3);
    QCOMPARE(int(engine.timeline(s)->finishReason), int(FinishReason::Stop));
  }

  // Every finished request is recorded, aborted ones included; request_success counts
  // them per finish_reason; prompt tokens are counted at a request's first token.
  void abortedRequestsAreInTheMetrics() {
    Engine engine(fx_.model, knobs(2048, true, true));
    const RequestId waiting = engine.addRequest(greedy(fx_.prompts[0]));
    engine.abortRequest(waiting);
    const RequestId done = engine.addRequest(greedy(fx_.prompts[1], 1));
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
    QCOMPARE(t.promptTokens, int64_t(fx_.prompts[1].size()));
    QCOMPARE(t.generatedTokens, int64_t(1));
  }

  void abortFreesBlocks() {
    Engine engine(fx_.model, knobs(2048, true, true));
    RequestId id = engine.addRequest(greedy(fx_.prompts[0], 100));
    engine.step();
    engine.abortRequest(id);
    StepOutput out = engine.step();
    QCOMPARE(out.newlyFinished, std::vector<RequestId>{id});
    QCOMPARE(int(engine.timeline(id)->finishReason), int(FinishReason::Abort));
    for (const KvBlockInfo& b : engine.kvBlocks()) QCOMPARE(b.refCount, 0);
    QVERIFY(!engine.hasUnfinishedRequests());
  }
};

QTEST_GUILESS_MAIN(TestEngineRequests)
#include "tst_engine_requests.moc"
