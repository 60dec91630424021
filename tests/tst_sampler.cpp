// Sampler: greedy, filters, statistics of draws, seeding, raw logprobs, validation; on
// 152k-entry vocabularies the sort-free draw equals a full sort token for token, and its
// many-candidate path keeps the distribution.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "engine/common/error.h"
#include "engine/sample/sampler.h"

using namespace lwb;

namespace {

// Draws per row checked against the full sort in largeVocabularyMatchesTheFullSort. Each
// draw scans a 40k-152k row; under the sanitizers (and their coverage instrumentation)
// 600 draws are too slow for CI, so that build checks the same paths with fewer.
#ifdef LWB_SANITIZED_BUILD
constexpr int kDrawsPerRow = 100;
#else
constexpr int kDrawsPerRow = 600;
#endif

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

// The full-sort algorithm the sampler used before filtered_draw.h, kept as the oracle:
// sort every token by probability, cut min-p, top-k, top-p; draw(u) walks the order.
class FullSort {
 public:
  FullSort(const std::vector<float>& z, const FilterSettings& f) : probs_(z.size()) {
    const float zMax = *std::max_element(z.begin(), z.end());
    for (size_t i = 0; i < z.size(); ++i) probs_[i] = {std::exp(double(z[i]) - zMax), int(i)};
    std::sort(probs_.begin(), probs_.end(),
              [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    keep_ = probs_.size();
    if (f.minP > 0.0f)
      while (keep_ > 1 && probs_[keep_ - 1].first < f.minP * probs_[0].first) --keep_;
    if (f.topK > 0) keep_ = std::min(keep_, size_t(f.topK));
    if (f.topP < 1.0f) {
      double kept = 0.0, cum = 0.0;
      for (size_t i = 0; i < keep_; ++i) kept += probs_[i].first;
      for (size_t i = 0; i < keep_; ++i)
        if ((cum += probs_[i].first) >= f.topP * kept) {
          keep_ = i + 1;
          break;
        }
    }
    for (size_t i = 0; i < keep_; ++i) mass_ += probs_[i].first;
  }
  int draw(double u) const {
    double cum = 0.0;
    for (size_t i = 0; i < keep_; ++i)
      if (u * mass_ < (cum += probs_[i].first)) return probs_[i].second;
    return probs_[keep_ - 1].second;
  }
  size_t numKept() const { return keep_; }

 private:
  std::vector<std::pair<double, int>> probs_;
  size_t keep_ = 0;
  double mass_ = 0.0;
};

// Logits shaped like a language model's over a 151,936-token vocabulary: a bulk far
// below a few hundred plausible tokens, with exact ties among them; scaled by 1/T.
std::vector<float> lmLikeLogits(unsigned seed, float temperature, int vocab = 151936) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> bulk(-8.0f, 3.0f), head(14.0f, 3.0f);
  std::vector<float> z(static_cast<size_t>(vocab));
  for (float& v : z) v = bulk(rng);
  for (int i = 0; i < 300; ++i) z[rng() % unsigned(vocab)] = head(rng);
  z[rng() % unsigned(vocab)] = z[17];  // a tie, broken by the lower id
  for (float& v : z) v /= temperature;
  return z;
}

// Every token comparable: N(0, 1) logits over the whole vocabulary.
std::vector<float> flatLogits(unsigned seed, int vocab = 40000) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> z(static_cast<size_t>(vocab));
  for (float& v : z) v = d(rng);
  return z;
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

  // Few tokens matter (a real model's logits) or top-k bounds them: the full sort's draw,
  // bit for bit. Flat rows without top-k (thousands of candidates, the bucketed path):
  // the same token unless u falls within rounding of a boundary, which 600 draws
  // per row do not hit.
  void largeVocabularyMatchesTheFullSort_data() {
    QTest::addColumn<float>("temperature");
    QTest::addColumn<float>("minP");
    QTest::addColumn<int>("topK");
    QTest::addColumn<float>("topP");
    QTest::addColumn<bool>("flat");
    QTest::addColumn<int>("flatVocab");
    QTest::newRow("qwen2.5 defaults: T 0.7, top-k 20, top-p 0.8") << 0.7f << 0.0f << 20 << 0.8f << false << 40000;
    QTest::newRow("qwen3 thinking: T 0.6, top-k 20, top-p 0.95") << 0.6f << 0.0f << 20 << 0.95f << false << 40000;
    QTest::newRow("top-p 0.9 alone") << 0.7f << 0.0f << 0 << 0.9f << false << 40000;
    QTest::newRow("min-p 0.05 alone, T 1") << 1.0f << 0.05f << 0 << 1.0f << false << 40000;
    QTest::newRow("temperature alone, T 0.5") << 0.5f << 0.0f << 0 << 1.0f << false << 40000;
    QTest::newRow("all three, T 1.2") << 1.2f << 0.02f << 40 << 0.9f << false << 40000;
    QTest::newRow("flat: top-k 50") << 1.0f << 0.0f << 50 << 1.0f << true << 40000;
    QTest::newRow("flat: temperature alone") << 1.0f << 0.0f << 0 << 1.0f << true << 40000;
    QTest::newRow("flat: top-p 0.5") << 1.0f << 0.0f << 0 << 0.5f << true << 40000;
    QTest::newRow("flat: min-p 0.02, top-p 0.8") << 1.0f << 0.02f << 0 << 0.8f << true << 40000;
    // A tenth of 152k tokens pass min-p: weighed on their gathered values, not the row.
    QTest::newRow("flat 152k: min-p 0.05") << 1.0f << 0.05f << 0 << 1.0f << true << 151936;
    QTest::newRow("flat 152k: min-p 0.05, top-p 0.9") << 1.0f << 0.05f << 0 << 0.9f << true << 151936;
    QTest::newRow("flat 152k: top-p 0.9") << 1.0f << 0.0f << 0 << 0.9f << true << 151936;
  }
  void largeVocabularyMatchesTheFullSort() {
    QFETCH(float, temperature);
    QFETCH(float, minP);
    QFETCH(int, topK);
    QFETCH(float, topP);
    QFETCH(bool, flat);
    QFETCH(int, flatVocab);
    const FilterSettings f{minP, topK, topP};
    DrawScratch scratch;
    std::mt19937_64 rng(5);
    for (unsigned row = 0; row < 2; ++row) {
      const std::vector<float> z = flat ? flatLogits(row, flatVocab) : lmLikeLogits(row, temperature);
      const FullSort oracle(z, f);
      if (flat && topK == 0) QVERIFY(oracle.numKept() > 1000);  // the many-candidate path
      for (int i = 0; i < kDrawsPerRow; ++i) {
        const double u = double(rng() >> 11) * 0x1p-53;
        const int got = filteredDraw(z.data(), int(z.size()), f, u, scratch);
        const int want = oracle.draw(u);
        QVERIFY2(got == want, qPrintable(QString("row %1, u %2: %3, full sort %4").arg(row).arg(u).arg(got).arg(want)));
      }
    }
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
