// Sampler: greedy, filters, statistics of draws, seeding, raw logprobs, validation.
#include <QtTest>

#include <cmath>
#include <map>

#include "engine/common/error.h"
#include "engine/sample/sampler.h"

using namespace lwb;

namespace {

std::vector<float> logitsFromProbs(const std::vector<double>& p) {
  std::vector<float> l;
  for (double x : p) l.push_back(float(std::log(x)));
  return l;
}

std::map<int, int> drawMany(SamplingParams params, const std::vector<float>& logits, int n, uint64_t seed = 7) {
  RequestSampler sampler(params, seed);
  std::map<int, int> counts;
  for (int i = 0; i < n; ++i) {
    std::vector<float> scratch = logits;
    counts[sampler.sample(scratch.data(), int(scratch.size()), {}).tokenId]++;
  }
  return counts;
}

}  // namespace

class TestSampler : public QObject {
  Q_OBJECT
 private slots:
  void greedyPicksArgmaxLowestIdOnTies() {
    SamplingParams p;
    p.temperature = 0;
    RequestSampler s(p, 1);
    std::vector<float> l = {0.5f, 2.0f, -1.0f, 2.0f};
    QCOMPARE(s.sample(l.data(), 4, {}).tokenId, 1);
  }

  void drawsFollowTheDistribution() {
    const std::vector<double> probs = {0.5, 0.25, 0.15, 0.1};
    SamplingParams p;
    p.temperature = 1.0f;
    const int n = 40000;
    auto counts = drawMany(p, logitsFromProbs(probs), n);
    for (int i = 0; i < 4; ++i) {
      const double expected = probs[i] * n;
      const double sd = std::sqrt(n * probs[i] * (1 - probs[i]));
      QVERIFY2(std::fabs(counts[i] - expected) < 5 * sd, qPrintable(QString("token %1: %2 draws, expected %3")
                                                                      .arg(i).arg(counts[i]).arg(expected)));
    }
  }

  void temperatureSharpens() {
    const std::vector<double> probs = {0.6, 0.4};
    SamplingParams p;
    p.temperature = 0.25f;  // p ∝ probs^4 → 0.835 / 0.165
    const int n = 20000;
    auto counts = drawMany(p, logitsFromProbs(probs), n);
    const double expected = std::pow(0.6, 4) / (std::pow(0.6, 4) + std::pow(0.4, 4));
    QVERIFY(std::fabs(counts[0] / double(n) - expected) < 0.02);
  }

  void topKKeepsOnlyTheBest() {
    SamplingParams p;
    p.topK = 2;
    auto counts = drawMany(p, logitsFromProbs({0.3, 0.3, 0.2, 0.2}), 5000);
    QCOMPARE(counts.count(2) + counts.count(3), size_t(0));
    QVERIFY(counts[0] > 2000 && counts[1] > 2000);
  }

  void topPKeepsSmallestSufficientSet() {
    SamplingParams p;
    p.topP = 0.7f;  // 0.5 + 0.25 reaches 0.7: tokens 0 and 1 only
    auto counts = drawMany(p, logitsFromProbs({0.5, 0.25, 0.15, 0.1}), 5000);
    QCOMPARE(counts.count(2) + counts.count(3), size_t(0));
    QVERIFY(counts[1] > 1000);
  }

  void minPDropsUnlikelyTokens() {
    SamplingParams p;
    p.minP = 0.5f;  // keep p >= 0.25 (half of 0.5)
    auto counts = drawMany(p, logitsFromProbs({0.5, 0.25, 0.15, 0.1}), 5000);
    QCOMPARE(counts.count(2) + counts.count(3), size_t(0));
  }

  void sameSeedSameTokensDifferentSeedDiffers() {
    SamplingParams p;
    p.seed = 1234;
    const auto logits = logitsFromProbs({0.2, 0.2, 0.2, 0.2, 0.2});
    auto run = [&](SamplingParams params) {
      RequestSampler s(params, 99);
      std::vector<int> ids;
      for (int i = 0; i < 64; ++i) {
        auto scratch = logits;
        ids.push_back(s.sample(scratch.data(), 5, {}).tokenId);
      }
      return ids;
    };
    QCOMPARE(run(p), run(p));
    SamplingParams q = p;
    q.seed = 1235;
    QVERIFY(run(p) != run(q));
  }

  void repetitionPenaltyDemotesSeenTokens() {
    SamplingParams p;
    p.temperature = 0;
    p.repetitionPenalty = 2.0f;
    RequestSampler s(p, 1);
    std::vector<float> l = {3.0f, 2.0f, -1.0f};
    auto r = s.sample(l.data(), 3, {0, 0, 2});  // 3/2 = 1.5 < 2
    QCOMPARE(r.tokenId, 1);
    QCOMPARE(l[2], -2.0f);  // negative logits are multiplied
  }

  void logprobsAreRawLogSoftmaxBestFirst() {
    SamplingParams p;
    p.temperature = 0.5f;
    p.repetitionPenalty = 1.5f;
    p.logprobs = 3;
    RequestSampler s(p, 3);
    const std::vector<double> probs = {0.1, 0.6, 0.3};
    auto l = logitsFromProbs(probs);
    auto r = s.sample(l.data(), 3, {1});
    QCOMPARE(r.topLogprobs.size(), size_t(3));
    QCOMPARE(r.topLogprobs[0].first, 1);
    QCOMPARE(r.topLogprobs[1].first, 2);
    QVERIFY(std::fabs(r.topLogprobs[0].second - std::log(0.6)) < 1e-5);
    QVERIFY(std::fabs(r.logprob - std::log(probs[r.tokenId])) < 1e-5);
  }

  void validationNamesTheField_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("field");
    QTest::newRow("temperature") << 0 << "temperature";
    QTest::newRow("top_p zero") << 1 << "top_p";
    QTest::newRow("top_p > 1") << 2 << "top_p";
    QTest::newRow("max_tokens") << 3 << "max_tokens";
    QTest::newRow("min_p") << 4 << "min_p";
    QTest::newRow("repetition_penalty") << 5 << "repetition_penalty";
    QTest::newRow("top_k") << 6 << "top_k";
  }
  void validationNamesTheField() {
    QFETCH(int, which);
    QFETCH(QString, field);
    SamplingParams p;
    switch (which) {
      case 0: p.temperature = -0.1f; break;
      case 1: p.topP = 0.0f; break;
      case 2: p.topP = 1.5f; break;
      case 3: p.maxTokens = 0; break;
      case 4: p.minP = 2.0f; break;
      case 5: p.repetitionPenalty = 0.0f; break;
      case 6: p.topK = -5; break;
    }
    try {
      p.validate();
      QFAIL("validate() accepted an invalid value");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).startsWith(field), e.what());
    }
    SamplingParams ok;
    ok.validate();
  }
};

QTEST_GUILESS_MAIN(TestSampler)
#include "tst_sampler.moc"
