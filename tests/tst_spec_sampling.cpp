// Speculative sampling keeps the target distribution. Three levels: the acceptance and
// residual maths integrated exactly over a grid of both uniforms on small enumerated
// vocabularies; the per-request sampler's verify() against p by a chi-square test on
// many seeded draws (fixed seeds: the statistic is a fixed number, the bound is at
// alpha = 1e-9); and the engine end to end, with scripted drafts on a random model,
// against the same engine without speculation (two-sample chi-square, fixed seeds).
#include <QtTest>

#include <cmath>
#include <map>
#include <random>

#include "common/random_model.h"
#include "engine/engine.h"
#include "engine/engine_testing.h"
#include "engine/model/model.h"
#include "engine/sample/rejection_sampler.h"
#include "engine/sample/sampler.h"
#include "engine/spec/proposer.h"

using namespace lwb;

namespace {

// Chi-square quantile for upper tail `alpha` = 1e-9 (z = 5.998), Wilson–Hilferty;
// slightly above the exact value for df >= 3.
double chiSquareBound(int df) {
  const double z = 5.998, a = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

// P(output = t) of verifyDraft for draft d ~ q (or the point mass), by a midpoint grid
// over (uAccept, uResidual): exact up to the grid's resolution at the boundaries.
std::vector<double> outputDistribution(const std::vector<double>& p, const std::vector<double>* q, int pointDraft,
                                       int grid) {
  std::vector<double> out(p.size(), 0.0);
  for (size_t d = 0; d < p.size(); ++d) {
    const double qd = q ? (*q)[d] : (int(d) == pointDraft ? 1.0 : 0.0);
    if (qd == 0.0) continue;
    for (int i = 0; i < grid; ++i)
      for (int j = 0; j < grid; ++j) {
        const DraftVerdict v = verifyDraft(p, q, int(d), (i + 0.5) / grid, (j + 0.5) / grid);
        out[size_t(v.tokenId)] += qd / (double(grid) * grid);
      }
  }
  return out;
}

struct ScriptedDraft : Proposer {
  int token;
  explicit ScriptedDraft(int t) : token(t) {}
  void propose(const std::vector<Request*>& running, int maxModelLen) override {
    for (Request* r : running) {
      r->specTokenIds.clear();
      if (isDecoding(*r) && draftLimit(*r, 1, maxModelLen) > 0) r->specTokenIds.push_back(token);
    }
  }
};

}  // namespace

class TestSpecSampling : public QObject {
  Q_OBJECT

 private slots:
  void acceptanceAndResidualKeepTheTargetDistribution_data() {
    QTest::addColumn<std::vector<double>>("p");
    QTest::addColumn<std::vector<double>>("q");  // empty: point mass on token 1
    QTest::addRow("draft close to target") << std::vector<double>{0.1, 0.4, 0.3, 0.2} << std::vector<double>{0.15, 0.35, 0.25, 0.25};
    QTest::addRow("draft far from target") << std::vector<double>{0.7, 0.1, 0.1, 0.1} << std::vector<double>{0.05, 0.05, 0.1, 0.8};
    QTest::addRow("draft misses a token") << std::vector<double>{0.2, 0.3, 0.5, 0.0} << std::vector<double>{0.0, 0.5, 0.25, 0.25};
    QTest::addRow("draft equals target") << std::vector<double>{0.25, 0.25, 0.5, 0.0} << std::vector<double>{0.25, 0.25, 0.5, 0.0};
    QTest::addRow("n-gram point mass") << std::vector<double>{0.1, 0.6, 0.2, 0.1} << std::vector<double>{};
    QTest::addRow("point mass on an impossible token") << std::vector<double>{0.5, 0.0, 0.2, 0.3} << std::vector<double>{};
  }
  void acceptanceAndResidualKeepTheTargetDistribution() {
    QFETCH(std::vector<double>, p);
    QFETCH(std::vector<double>, q);
    const std::vector<double> got = outputDistribution(p, q.empty() ? nullptr : &q, 1, 400);
    for (size_t t = 0; t < p.size(); ++t)
      QVERIFY2(std::fabs(got[t] - p[t]) < 1.0 / 400,  // a boundary cell per token and draft
               qPrintable(QString("token %1: %2 vs p %3").arg(t).arg(got[t]).arg(p[t])));
  }

  void residualIsNormalisedMaxOfDifference() {
    const std::vector<double> p{0.7, 0.1, 0.1, 0.1}, q{0.05, 0.05, 0.1, 0.8};
    const std::vector<double> r = residualProbs(p, &q, 0);
    const std::vector<double> want{0.65 / 0.7, 0.05 / 0.7, 0.0, 0.0};
    for (size_t i = 0; i < want.size(); ++i) QVERIFY(std::fabs(r[i] - want[i]) < 1e-15);
    const std::vector<double> point = residualProbs(p, nullptr, 0);  // n-gram: p without the draft
    QCOMPARE(point[0], 0.0);
    QVERIFY(std::fabs(point[1] - 1.0 / 3.0) < 1e-15);
  }

  // filteredProbs is the distribution filteredDraw draws from: on a grid of u, each
  // token is drawn for exactly its probability's share of the grid.
  void filteredProbsIsWhatTheDrawDrawsFrom_data() {
    QTest::addColumn<float>("minP");
    QTest::addColumn<int>("topK");
    QTest::addColumn<float>("topP");
    QTest::addRow("none") << 0.0f << 0 << 1.0f;
    QTest::addRow("top-k 5") << 0.0f << 5 << 1.0f;
    QTest::addRow("top-p 0.8") << 0.0f << 0 << 0.8f;
    QTest::addRow("min-p 0.1, top-k 8, top-p 0.9") << 0.1f << 8 << 0.9f;
  }
  void filteredProbsIsWhatTheDrawDrawsFrom() {
    QFETCH(float, minP);
    QFETCH(int, topK);
    QFETCH(float, topP);
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    std::vector<float> z(40);
    for (float& x : z) x = normal(rng);
    const FilterSettings f{minP, topK, topP};
    std::vector<double> probs;
    filteredProbs(z.data(), int(z.size()), f, probs);
    const int grid = 200000;
    std::vector<double> share(z.size(), 0.0);
    DrawScratch scratch;
    for (int i = 0; i < grid; ++i) share[size_t(filteredDraw(z.data(), int(z.size()), f, (i + 0.5) / grid, scratch))] += 1.0 / grid;
    for (size_t t = 0; t < z.size(); ++t) QVERIFY2(std::fabs(share[t] - probs[t]) <= 1.0 / grid + 1e-12, qPrintable(QString::number(t)));
  }

  // The request's sampler, verifying drafts drawn from q, outputs p (temperature,
  // top-k, repetition penalty as sample() applies them).
  void verifyFollowsTheTargetDistribution() {
    SamplingParams params;
    params.temperature = 0.8f;
    params.topK = 6;
    params.repetitionPenalty = 1.3f;
    const std::vector<float> logits{1.0f, 0.2f, 2.0f, -0.5f, 0.7f, 1.5f, 0.0f, -3.0f};
    const std::vector<int> history{0, 2};
    const int vocab = int(logits.size());
    std::vector<float> scratch = logits;
    std::vector<double> p;
    samplingProbs(params, scratch.data(), vocab, history, p);
    const std::vector<double> q{0.3, 0.1, 0.1, 0.2, 0.1, 0.1, 0.05, 0.05};
    RequestSampler sampler(params, 11);
    std::mt19937_64 draftRng(5);
    const int n = 200000;
    std::vector<int> counts(size_t(vocab), 0);
    int accepted = 0;
    for (int i = 0; i < n; ++i) {
      const int draft = drawFromWeights(q, double(draftRng() >> 11) / 9007199254740992.0);
      scratch = logits;
      bool ok = false;
      counts[size_t(sampler.verify(scratch.data(), vocab, history, draft, &q, &ok).tokenId)]++;
      accepted += ok;
    }
    double stat = 0.0;
    int df = -1;
    for (int t = 0; t < vocab; ++t) {
      if (p[size_t(t)] == 0.0) {
        QCOMPARE(counts[size_t(t)], 0);
        continue;
      }
      const double e = n * p[size_t(t)];
      stat += (counts[size_t(t)] - e) * (counts[size_t(t)] - e) / e;
      ++df;
    }
    qInfo("chi-square %.2f (df %d, bound %.1f), acceptance %.3f", stat, df, chiSquareBound(df), double(accepted) / n);
    QVERIFY(stat < chiSquareBound(df));
    QVERIFY(accepted > 0 && accepted < n);
  }

  // End to end: the joint law of the first two sampled tokens (top_k 4: 16 outcomes)
  // with a scripted draft for the second token equals the law without speculation.
  void engineSamplingKeepsTheDistribution() {
    QTemporaryDir dir;
    RandomModelSpec modelSpec;
    modelSpec.scale = 0.5f;
    auto model = std::shared_ptr<const Model>(loadModel(writeRandomLlamaModel(dir.filePath("m").toStdString(), modelSpec)));
    const int n = 3000;
    auto run = [&](int draftToken, uint64_t seedBase) {
      EngineConfig c;
      c.maxNumBatchedTokens = 2048;
      c.maxNumSeqs = 256;
      c.executor.backend = "cpu";
      c.executor.numThreads = 2;
      if (draftToken >= 0) c.speculative = parseSpeculativeConfig(R"({"method": "ngram", "num_speculative_tokens": 1})");
      Engine engine(model, c);
      if (draftToken >= 0) EngineTesting::setProposer(engine, std::make_unique<ScriptedDraft>(draftToken));
      for (int i = 0; i < n; ++i) {
        RequestInput in;
        in.promptTokenIds = {1, 40, 41, 42, 43};
        in.sampling.temperature = 1.0f;
        in.sampling.topK = 4;
        in.sampling.maxTokens = 3;
        in.sampling.ignoreEos = true;
        in.sampling.seed = seedBase + uint64_t(i);
        engine.addRequest(in);
      }
      std::map<std::pair<int, int>, int> joint;
      std::map<RequestId, std::vector<int>> tokens;
      for (int guard = 0; engine.hasUnfinishedRequests() && guard < 10000; ++guard)
        for (const TokenDelta& d : engine.step().deltas) tokens[d.id].insert(tokens[d.id].end(), d.newTokenIds.begin(), d.newTokenIds.end());
      for (const auto& [id, t] : tokens) joint[{t.at(0), t.at(1)}]++;
      return std::make_pair(joint, engine.totals().specDecode);
    };
    const auto plain = run(-1, 1000000).first;
    // The draft: the most frequent second token, so both acceptance and rejection happen.
    std::map<int, int> second;
    for (const auto& [key, v] : plain) second[key.second] += v;
    const int draft = std::max_element(second.begin(), second.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
    const auto [spec, counts] = run(draft, 2000000);  // other seeds: independent samples
    QCOMPARE(counts.numDraftTokens, int64_t(n));
    QVERIFY(counts.numAcceptedTokens > n / 20 && counts.numAcceptedTokens < n);
    std::map<std::pair<int, int>, std::pair<int, int>> cells;
    for (const auto& [key, v] : plain) cells[key].first = v;
    for (const auto& [key, v] : spec) cells[key].second = v;
    double stat = 0.0;
    for (const auto& [key, ab] : cells) stat += double(ab.first - ab.second) * (ab.first - ab.second) / (ab.first + ab.second);
    const int df = int(cells.size()) - 1;
    qInfo("two-sample chi-square %.2f (df %d, bound %.1f), %lld of %d drafts accepted", stat, df, chiSquareBound(df),
          (long long)counts.numAcceptedTokens, n);
    QVERIFY(stat < chiSquareBound(df));
  }
};

QTEST_GUILESS_MAIN(TestSpecSampling)
#include "tst_spec_sampling.moc"
