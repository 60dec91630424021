// Speculative decoding on a real tiny random model (CPU executor): greedy outputs with
// n-gram, draft-model and scripted drafts are bit-identical to greedy outputs without
// them, for k = 1..5, batched with other requests, with chunked prefill and across
// preemption; the counters add up (and equal a case worked out by hand); no block is
// left owned. A draft model that is the target itself has every draft accepted.
#include <QtTest>

#include <map>
#include <nlohmann/json.hpp>

#include "common/random_model.h"
#include "engine/common/json.h"
#include "engine/engine.h"
#include "engine/engine_testing.h"
#include "engine/model/model.h"
#include "engine/common/error.h"
#include "engine/bench/bench_report.h"
#include "engine/metrics/export.h"
#include "engine/spec/ngram_proposer.h"
#include "engine/spec/proposer.h"

using namespace lwb;

namespace {

using Outputs = std::map<RequestId, std::vector<int>>;

struct Run {
  Outputs tokens;
  Outputs fromDraft;  // 1 per token that was an accepted draft
  EngineTotals totals;
  std::vector<StepRecord> steps;
  std::map<RequestId, RequestTimeline> timelines;
  int numOwnedAtEnd = 0;
  int numBadTextEnds = 0;  // deltas whose textEnds are not one per token, ascending, within newText
};

EngineConfig knobs(int budget, int blocks, const std::string& spec) {
  EngineConfig c;
  c.maxNumBatchedTokens = budget;
  c.maxNumSeqs = std::min(16, budget);
  c.numGpuBlocksOverride = blocks;
  c.blockSize = 8;
  c.executor.backend = "cpu";
  c.executor.numThreads = 2;
  c.speculative = parseSpeculativeConfig(spec);
  return c;
}

// Scripted drafts: the known greedy continuation of each request, with the draft at
// every output index listed in `wrongAt` replaced by another token. Exercises
// acceptance at every position and rejection where the script says.
class OracleProposer : public Proposer {
 public:
  OracleProposer(Outputs expected, int k, std::vector<int> wrongAt, int vocab)
      : expected_(std::move(expected)), k_(k), wrongAt_(std::move(wrongAt)), vocab_(vocab) {}
  void propose(const std::vector<Request*>& running, int maxModelLen) override {
    for (Request* r : running) {
      r->specTokenIds.clear();
      const int n = isDecoding(*r) ? draftLimit(*r, k_, maxModelLen) : 0;
      const std::vector<int>& want = expected_.at(r->id);
      for (int j = 0; j < n; ++j) {
        const int index = r->numOutputTokens() + j;
        const bool wrong = std::find(wrongAt_.begin(), wrongAt_.end(), index) != wrongAt_.end();
        r->specTokenIds.push_back(wrong ? (want[size_t(index)] + 1) % vocab_ : want[size_t(index)]);
      }
    }
  }

 private:
  Outputs expected_;
  int k_;
  std::vector<int> wrongAt_;
  int vocab_;
};

Run runAll(std::shared_ptr<const Model> model, const EngineConfig& config, const std::vector<std::vector<int>>& prompts,
           int maxTokens, std::unique_ptr<Proposer> proposer = nullptr) {
  Engine engine(model, config);
  if (proposer) EngineTesting::setProposer(engine, std::move(proposer));
  Run run;
  for (const auto& p : prompts) {
    RequestInput in;
    in.promptTokenIds = p;
    in.sampling.temperature = 0;
    in.sampling.maxTokens = maxTokens;
    in.sampling.ignoreEos = true;
    engine.addRequest(in);
  }
  for (int guard = 0; engine.hasUnfinishedRequests() && guard < 20000; ++guard) {
    StepOutput out = engine.step();
    if (!out.error.empty()) qWarning("step error: %s", out.error.c_str());
    for (const TokenDelta& d : out.deltas) {
      run.tokens[d.id].insert(run.tokens[d.id].end(), d.newTokenIds.begin(), d.newTokenIds.end());
      for (bool b : d.fromDraft) run.fromDraft[d.id].push_back(b ? 1 : 0);
      run.numBadTextEnds += d.textEnds.size() != d.newTokenIds.size() || !std::is_sorted(d.textEnds.begin(), d.textEnds.end()) ||
                            (!d.textEnds.empty() && d.textEnds.back() > d.newText.size());
      if (d.finishReason == FinishReason::Error) qWarning("error: %s", engine.timeline(d.id)->error.c_str());
    }
  }
  run.totals = engine.totals();
  run.steps = engine.steps();
  for (const RequestTimeline& t : engine.allTimelines()) run.timelines[t.id] = t;
  for (const KvBlockInfo& b : engine.kvBlocks()) run.numOwnedAtEnd += b.kind == KvBlockInfo::Kind::Owned;
  return run;
}

std::string ngram(int k, int lookupMin = 1, int lookupMax = 3) {
  return R"({"method": "ngram", "num_speculative_tokens": )" + std::to_string(k) +
         R"(, "prompt_lookup_min": )" + std::to_string(lookupMin) + R"(, "prompt_lookup_max": )" +
         std::to_string(lookupMax) + "}";
}

// {"method": METHOD (when given), "model": DIR, "num_speculative_tokens": K}
std::string draftSpec(const std::string& method, const std::string& dir, int k) {
  nlohmann::json j = {{"model", dir}, {"num_speculative_tokens", k}};
  if (!method.empty()) j["method"] = method;
  return j.dump();
}

}  // namespace

class TestSpecDecode : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::shared_ptr<const Model> model_;
  std::vector<std::vector<int>> prompts_;
  Run baseline_;
  std::string targetDir_, draftDir_;
  static constexpr int kMaxTokens = 40;

 private slots:
  void initTestCase() {
    RandomModelSpec spec;
    spec.vocabSize = 512;
    spec.maxPositionEmbeddings = 256;
    spec.scale = 1.0f;  // peaked logits: the random model falls into loops, which n-grams predict
    targetDir_ = writeRandomLlamaModel(dir_.filePath("m").toStdString(), spec);
    model_ = loadModel(targetDir_);
    RandomModelSpec small = spec;  // same tokenizer and vocabulary, a quarter of the width
    small.hiddenSize = 32;
    small.intermediateSize = 64;
    small.numHiddenLayers = 1;
    small.seed = 99;
    draftDir_ = writeRandomLlamaModel(dir_.filePath("draft").toStdString(), small);
    // Prompts that repeat a pattern ("continue this passage") and plain ones.
    for (int p = 0; p < 6; ++p) {
      std::vector<int> prompt{1};
      const int period = 3 + p;
      const int len = 12 + 7 * p;
      for (int i = 0; i < len; ++i) prompt.push_back(p % 2 ? 3 + (i % period) * 11 : 3 + (p * 31 + i * 7) % 200);
      prompts_.push_back(prompt);
    }
    baseline_ = runAll(model_, knobs(2048, 0, ""), prompts_, kMaxTokens);
    QCOMPARE(int(baseline_.tokens.size()), 6);
    QCOMPARE(baseline_.totals.specDecode.numDrafts, int64_t(0));
  }

  void greedyIsIdenticalWithNgram_data() {
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("budget");
    QTest::addColumn<int>("blocks");
    for (int k = 1; k <= 5; ++k) QTest::addRow("k %d, budget 2048", k) << k << 2048 << 0;
    for (int k : {2, 5}) QTest::addRow("k %d, chunked (budget 16)", k) << k << 16 << 0;
    for (int k : {1, 3, 4}) QTest::addRow("k %d, tiny pool (preempts)", k) << k << 32 << 16;
  }
  void greedyIsIdenticalWithNgram() {
    QFETCH(int, k);
    QFETCH(int, budget);
    QFETCH(int, blocks);
    Run r = runAll(model_, knobs(budget, blocks, ngram(k)), prompts_, kMaxTokens);
    QCOMPARE(r.tokens, baseline_.tokens);
    QCOMPARE(r.numOwnedAtEnd, 0);
    const SpecDecodeCounts& c = r.totals.specDecode;
    QVERIFY2(c.numAcceptedTokens > 0, "repeating prompts should get drafts accepted");
    QVERIFY(c.numDraftTokens <= c.numDrafts * k);
    QVERIFY(c.numAcceptedTokens <= c.numDraftTokens);
    int64_t perPos = 0;
    for (int64_t n : c.numAcceptedTokensPerPos) perPos += n;
    QCOMPARE(perPos, c.numAcceptedTokens);
    QVERIFY(int(c.numAcceptedTokensPerPos.size()) <= k);
    for (size_t i = 1; i < c.numAcceptedTokensPerPos.size(); ++i)
      QVERIFY(c.numAcceptedTokensPerPos[i] <= c.numAcceptedTokensPerPos[i - 1]);  // accepted in order
    // Steps: budget holds with drafts counted; the totals are the steps' and the requests' sums.
    int64_t stepDrafts = 0, stepAccepted = 0, stepSpecTokens = 0;
    for (const StepRecord& s : r.steps) {
      QVERIFY(s.numPrefillTokens + s.numDecodeTokens + s.numSpecTokens <= budget);
      stepDrafts += s.numSpecDrafts;
      stepAccepted += s.numAcceptedSpecTokens;
      stepSpecTokens += s.numSpecTokens;
    }
    QCOMPARE(stepDrafts, c.numDrafts);
    QCOMPARE(stepAccepted, c.numAcceptedTokens);
    QCOMPARE(stepSpecTokens, c.numDraftTokens);
    SpecDecodeCounts sum;
    int64_t marked = 0;
    for (const auto& [id, t] : r.timelines) sum.add(t.specDecode);
    for (const auto& [id, v] : r.fromDraft) marked += std::count(v.begin(), v.end(), 1);
    QCOMPARE(sum.numAcceptedTokens, c.numAcceptedTokens);
    QCOMPARE(sum.numDrafts, c.numDrafts);
    QCOMPARE(marked, c.numAcceptedTokens);
    QCOMPARE(r.numBadTextEnds, 0);
    if (blocks > 0) QVERIFY2(r.totals.preemptions > 0, "the small pool should have forced preemption");
  }

  void greedyIsIdenticalWithADraftModel_data() {
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("budget");
    QTest::addColumn<int>("blocks");
    for (int k = 1; k <= 5; ++k) QTest::addRow("k %d, budget 2048", k) << k << 2048 << 0;
    for (int k : {2, 4}) QTest::addRow("k %d, chunked (budget 16)", k) << k << 16 << 0;
    for (int k : {1, 3}) QTest::addRow("k %d, tiny pool (preempts)", k) << k << 32 << 16;
  }
  void greedyIsIdenticalWithADraftModel() {
    QFETCH(int, k);
    QFETCH(int, budget);
    QFETCH(int, blocks);
    const std::string spec = draftSpec("", draftDir_, k);
    Run r = runAll(model_, knobs(budget, blocks, spec), prompts_, kMaxTokens);
    QCOMPARE(r.tokens, baseline_.tokens);
    QCOMPARE(r.numOwnedAtEnd, 0);
    QVERIFY(r.totals.specDecode.numDrafts > 0);
    if (blocks > 0) QVERIFY2(r.totals.preemptions > 0, "the small pool should have forced preemption");
  }

  // The target as its own draft: the same logits (batch-invariant kernels), so greedy
  // accepts every draft; the draft's cache follows through rollbacks and bonus tokens.
  void theTargetAsItsOwnDraftIsAlwaysAccepted() {
    const std::string spec = draftSpec("draft_model", targetDir_, 3);
    Run r = runAll(model_, knobs(2048, 0, spec), prompts_, kMaxTokens);
    QCOMPARE(r.tokens, baseline_.tokens);
    const SpecDecodeCounts& c = r.totals.specDecode;
    QVERIFY(c.numDraftTokens > 0);
    QCOMPARE(c.numAcceptedTokens, c.numDraftTokens);
    QCOMPARE(c.acceptanceRate(), 1.0);
  }

  void draftModelErrorsNameTheProblem() {
    QTemporaryDir other;
    RandomModelSpec wrongVocab;
    wrongVocab.vocabSize = 640;
    const std::string dir = writeRandomLlamaModel(other.filePath("v").toStdString(), wrongVocab);
    try {
      Engine engine(model_, knobs(2048, 0, draftSpec("", dir, 2)));
      QFAIL("a draft model with another vocabulary was accepted");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("vocab_size 640"), e.what());
    }
  }

  // The run totals in bench JSON, the summary block and the metrics export: sums of the
  // requests' counters under vLLM's names, with the derived rates.
  void exportsCarryTheCounters() {
    BenchRequestRecord a, b;
    a.timeline.finishReason = b.timeline.finishReason = FinishReason::Length;
    a.timeline.specDecode.observe(3, 2);  // drafts of 3 tokens: 2, then 0, accepted
    a.timeline.specDecode.observe(3, 0);
    b.timeline.specDecode.observe(2, 2);
    const std::vector<RequestTimeline> timelines{a.timeline, b.timeline};
    const BenchReport report = makeBenchReport({a, b}, {}, 1.0);
    const nlohmann::json j = benchReportJson(report);
    QCOMPARE(j["spec_decode_num_drafts"].get<int>(), 3);
    QCOMPARE(j["spec_decode_num_draft_tokens"].get<int>(), 8);
    QCOMPARE(j["spec_decode_num_accepted_tokens"].get<int>(), 4);
    QCOMPARE(j["spec_decode_num_accepted_tokens_per_pos"], lwb::parseJson("[2, 2, 0]"));
    QCOMPARE(j["spec_decode_acceptance_rate"].get<double>(), 0.5);
    QCOMPARE(j["spec_decode_mean_acceptance_length"].get<double>(), 1.0 + 4.0 / 3.0);
    QCOMPARE(j["requests"][0]["spec_decode_num_accepted_tokens"].get<int>(), 2);
    QVERIFY(QString::fromStdString(formatBenchSummary(report)).contains("Acceptance rate (%):"));
    const nlohmann::json m = metricsSummaryJson(timelines, {});
    QCOMPARE(m["vllm:spec_decode_num_drafts"].get<int>(), 3);
    QCOMPARE(m["vllm:spec_decode_num_accepted_tokens_per_pos"], lwb::parseJson("[2, 2, 0]"));
    QCOMPARE(timelineToJson(b.timeline)["spec_decode_num_draft_tokens"].get<int>(), 2);
  }

  void configErrorsNameTheField_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    QTest::addRow("not json") << "{method" << "is not a JSON object";
    QTest::addRow("unknown key") << R"({"method": "ngram", "num_speculative_tokens": 2, "lookup": 3})" << "unknown key \"lookup\"";
    QTest::addRow("unknown method") << R"({"method": "eagle", "num_speculative_tokens": 2})" << "method \"eagle\"";
    QTest::addRow("k missing") << R"({"method": "ngram"})" << "num_speculative_tokens is missing";
    QTest::addRow("k zero") << R"({"method": "ngram", "num_speculative_tokens": 0})" << "num_speculative_tokens is 0; expected 1..16";
    QTest::addRow("k text") << R"({"method": "ngram", "num_speculative_tokens": "3"})" << "num_speculative_tokens is \"3\"; expected an integer";
    QTest::addRow("min > max") << R"({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, "prompt_lookup_max": 2})"
                               << "prompt_lookup_max is 2; expected at least prompt_lookup_min (4)";
    QTest::addRow("draft without model") << R"({"method": "draft_model", "num_speculative_tokens": 2})" << "needs \"model\"";
  }
  void configErrorsNameTheField() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    try {
      parseSpeculativeConfig(json.toStdString());
      QFAIL("accepted");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
      QVERIFY(QString(e.what()).startsWith("speculative_config: "));
    }
  }

  void configDefaultsAsVllm() {
    QCOMPARE(parseSpeculativeConfig("").enabled(), false);
    QCOMPARE(parseSpeculativeConfig("{}").enabled(), false);
    SpeculativeConfig c = parseSpeculativeConfig(R"({"method": "ngram", "num_speculative_tokens": 4})");
    QCOMPARE(c.promptLookupMin, 5);
    QCOMPARE(c.promptLookupMax, 5);
    c = parseSpeculativeConfig(R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 3})");
    QCOMPARE(c.promptLookupMin, 3);
    c = parseSpeculativeConfig(R"({"model": "/x", "num_speculative_tokens": 2})");
    QCOMPARE(int(c.method), int(SpecMethod::DraftModel));
    QVERIFY(parseSpeculativeConfig(c.toJson()) == c);
  }

  void ngramProposesWhatFollowedTheLongestRecentMatch() {
    // ... 7 8 9 | 1 2 3 4 | 7 8 9: after "7 8 9" came "1 2 3 4" (the 3-gram wins over "9").
    QCOMPARE(proposeNgram({9, 5, 7, 8, 9, 1, 2, 3, 4, 7, 8, 9}, 1, 3, 3), (std::vector<int>{1, 2, 3}));
    QCOMPARE(proposeNgram({9, 5, 7, 8, 9, 1, 2, 3, 4, 7, 8, 9}, 1, 1, 2), (std::vector<int>{1, 2}));  // the latest "9"
    QCOMPARE(proposeNgram({1, 2, 3, 4}, 1, 3, 3), std::vector<int>{});  // nothing recurs
    QCOMPARE(proposeNgram({5, 6, 5, 6}, 2, 2, 4), (std::vector<int>{5, 6}));  // fewer when the sequence ends
    QCOMPARE(proposeNgram({5, 6, 1, 5, 6}, 3, 4, 2), std::vector<int>{});  // below prompt_lookup_min
  }

  // Drafts that are mostly right: long accepted runs, rejections at scripted places;
  // outputs stay bit-identical however the batch is cut.
  void greedyIsIdenticalWithScriptedDrafts_data() {
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("budget");
    QTest::addColumn<int>("blocks");
    for (int k = 1; k <= 5; ++k) QTest::addRow("k %d, budget 2048", k) << k << 2048 << 0;
    for (int k : {3, 5}) QTest::addRow("k %d, chunked (budget 16)", k) << k << 16 << 0;
    for (int k : {2, 5}) QTest::addRow("k %d, tiny pool (preempts)", k) << k << 32 << 16;
  }
  void greedyIsIdenticalWithScriptedDrafts() {
    QFETCH(int, k);
    QFETCH(int, budget);
    QFETCH(int, blocks);
    auto oracle = std::make_unique<OracleProposer>(baseline_.tokens, k, std::vector<int>{4, 9, 10, 23, 31}, 512);
    Run r = runAll(model_, knobs(budget, blocks, ngram(k)), prompts_, kMaxTokens, std::move(oracle));
    QCOMPARE(r.tokens, baseline_.tokens);
    QCOMPARE(r.numOwnedAtEnd, 0);
    const SpecDecodeCounts& c = r.totals.specDecode;
    QVERIFY(c.numAcceptedTokens > 6 * 10);
    QVERIFY(c.meanAcceptanceLength() > 1.0 + 0.5 * k);
    for (const StepRecord& s : r.steps) QVERIFY(s.numPrefillTokens + s.numDecodeTokens + s.numSpecTokens <= budget);
    if (blocks > 0) QVERIFY2(r.totals.preemptions > 0, "the small pool should have forced preemption");
  }

  // The counters on a case worked out by hand: max_tokens 10, k = 3, the draft for
  // output index 5 wrong. Prefill gives token 0; drafts [1, 4) all accepted + bonus
  // token 4; drafts [5, 8) rejected at once (token 5 replaced); drafts [6, 9) all
  // accepted + bonus token 9. So 3 drafts, 9 draft tokens, 6 accepted, [2, 2, 2] per
  // position, 4 forward passes instead of 10.
  void countersOnAScriptedCase() {
    const std::vector<std::vector<int>> one{prompts_[1]};
    Run plain = runAll(model_, knobs(2048, 0, ""), one, 10);
    auto oracle = std::make_unique<OracleProposer>(plain.tokens, 3, std::vector<int>{5}, 512);
    Run r = runAll(model_, knobs(2048, 0, ngram(3)), one, 10, std::move(oracle));
    QCOMPARE(r.tokens, plain.tokens);
    const SpecDecodeCounts& c = r.totals.specDecode;
    QCOMPARE(c.numDrafts, int64_t(3));
    QCOMPARE(c.numDraftTokens, int64_t(9));
    QCOMPARE(c.numAcceptedTokens, int64_t(6));
    QCOMPARE(c.numAcceptedTokensPerPos, (std::vector<int64_t>{2, 2, 2}));
    QCOMPARE(c.acceptanceRate(), 6.0 / 9.0);
    QCOMPARE(c.meanAcceptanceLength(), 3.0);
    QCOMPARE(int(r.steps.size()), 4);
    QCOMPARE(r.fromDraft.at(1), (std::vector<int>{0, 1, 1, 1, 0, 0, 1, 1, 1, 0}));
    QCOMPARE(r.timelines.at(1).specDecode.numAcceptedTokens, int64_t(6));
    QCOMPARE(r.steps[1].numSpecTokens, 3);
    QCOMPARE(r.steps[1].numDecodeTokens, 1);
    QCOMPARE(r.steps[2].numAcceptedSpecTokens, 0);
  }

  void changingTheConfigLiveKeepsOutputs() {
    Engine engine(model_, knobs(2048, 0, ngram(3)));
    RequestInput in;
    in.promptTokenIds = prompts_[1];
    in.sampling.temperature = 0;
    in.sampling.maxTokens = kMaxTokens;
    in.sampling.ignoreEos = true;
    const RequestId id = engine.addRequest(in);
    std::vector<int> got;
    for (int step = 0; engine.hasUnfinishedRequests() && step < 1000; ++step) {
      if (step == 5) engine.setConfig(knobs(2048, 0, ""));
      if (step == 9) engine.setConfig(knobs(2048, 0, ngram(5, 2, 2)));
      for (const TokenDelta& d : engine.step().deltas) got.insert(got.end(), d.newTokenIds.begin(), d.newTokenIds.end());
    }
    QCOMPARE(got, baseline_.tokens.at(2));
    QCOMPARE(engine.timeline(id)->finishReason, FinishReason::Length);
  }
};

QTEST_GUILESS_MAIN(TestSpecDecode)
#include "tst_spec_decode.moc"
