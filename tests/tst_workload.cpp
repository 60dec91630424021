// The synthetic workload: a pure function of its options (seed), prompts built as
// BOS + group prefix + own part from ordinary ids only, Poisson arrivals, and option
// parsing / validation whose errors name the option.
#include <QtTest>

#include <cmath>
#include <set>

#include "engine/bench/workload.h"
#include "engine/common/error.h"

using namespace lwb;

namespace {

constexpr int kBos = 1;

// Ordinary ids with gaps, as a real vocabulary's would be (specials and bytes removed).
std::vector<int> ordinaryIds() {
  std::vector<int> ids;
  for (int i = 259; i < 4096; i += 3) ids.push_back(i);
  return ids;
}

WorkloadOptions smallOptions() {
  WorkloadOptions o;
  o.numPrompts = 40;
  o.requestRate = 10;
  o.inputLen = 50;
  o.rangeRatio = 0.2;
  o.outputLen = 8;
  o.sharedPrefixLen = 24;
  o.numPrefixGroups = 3;
  o.seed = 1234;
  return o;
}

QString errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestWorkload : public QObject {
  Q_OBJECT

 private slots:
  void sameSeedSameWorkload() {
    const auto a = makeWorkload(smallOptions(), ordinaryIds(), kBos);
    const auto b = makeWorkload(smallOptions(), ordinaryIds(), kBos);
    QCOMPARE(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      QCOMPARE(a[i].promptTokenIds, b[i].promptTokenIds);
      QCOMPARE(a[i].arrivalTime, b[i].arrivalTime);
    }
    WorkloadOptions other = smallOptions();
    other.seed = 1235;
    const auto c = makeWorkload(other, ordinaryIds(), kBos);
    QVERIFY(c[0].promptTokenIds != a[0].promptTokenIds);
  }

  // Changing the rate moves arrivals only; the prompts stay.
  void rateDoesNotChangePrompts() {
    WorkloadOptions o = smallOptions();
    const auto a = makeWorkload(o, ordinaryIds(), kBos);
    o.requestRate = 1;
    const auto b = makeWorkload(o, ordinaryIds(), kBos);
    for (size_t i = 0; i < a.size(); ++i) QCOMPARE(a[i].promptTokenIds, b[i].promptTokenIds);
    QVERIFY(b.back().arrivalTime > a.back().arrivalTime);
  }

  void lengthsWithinRange() {
    const WorkloadOptions o = smallOptions();
    std::set<size_t> lengths;
    for (const auto& r : makeWorkload(o, ordinaryIds(), kBos)) {
      const int own = int(r.promptTokenIds.size()) - 1 - o.sharedPrefixLen;
      QVERIFY2(own >= 40 && own <= 60, qPrintable(QString::number(own)));
      lengths.insert(r.promptTokenIds.size());
      QCOMPARE(r.sampling.maxTokens, o.outputLen);
      QCOMPARE(r.sampling.temperature, 0.0f);
    }
    QVERIFY(lengths.size() > 3);  // actually varies
    WorkloadOptions fixed = o;
    fixed.rangeRatio = 0;
    for (const auto& r : makeWorkload(fixed, ordinaryIds(), kBos))
      QCOMPARE(int(r.promptTokenIds.size()), 1 + o.sharedPrefixLen + o.inputLen);
  }

  void groupPrefixesSharedExactly() {
    const WorkloadOptions o = smallOptions();
    const auto w = makeWorkload(o, ordinaryIds(), kBos);
    std::vector<std::vector<int>> prefixOfGroup(o.numPrefixGroups);
    for (size_t i = 0; i < w.size(); ++i) {
      QCOMPARE(w[i].group, int(i) % o.numPrefixGroups);  // round-robin
      QCOMPARE(w[i].promptTokenIds.front(), kBos);
      std::vector<int> prefix(w[i].promptTokenIds.begin() + 1, w[i].promptTokenIds.begin() + 1 + o.sharedPrefixLen);
      auto& expected = prefixOfGroup[w[i].group];
      if (expected.empty()) expected = prefix;
      QCOMPARE(prefix, expected);
    }
    QVERIFY(prefixOfGroup[0] != prefixOfGroup[1]);
    QVERIFY(prefixOfGroup[1] != prefixOfGroup[2]);
    // Own parts differ between prompts of one group.
    QVERIFY(w[0].promptTokenIds != w[3].promptTokenIds);
  }

  void onlyOrdinaryIds() {
    const auto ids = ordinaryIds();
    const std::set<int> allowed(ids.begin(), ids.end());
    for (const auto& r : makeWorkload(smallOptions(), ids, kBos)) {
      QCOMPARE(r.promptTokenIds.front(), kBos);
      for (size_t k = 1; k < r.promptTokenIds.size(); ++k) QVERIFY(allowed.count(r.promptTokenIds[k]));
    }
    QVERIFY(!errorOf([] { makeWorkload(smallOptions(), {}, kBos); }).isEmpty());
  }

  void infiniteRateArrivesAtOnce() {
    WorkloadOptions o = smallOptions();
    o.requestRate = std::numeric_limits<double>::infinity();
    for (const auto& r : makeWorkload(o, ordinaryIds(), kBos)) QCOMPARE(r.arrivalTime, 0.0);
  }

  // Exponential gaps: mean 1/R; with 20000 gaps the standard error is 1/(R·√20000) ≈ 0.7%
  // of the mean, so ±5% is a generous bound. Arrivals never go backwards.
  void poissonGapsHaveMeanOneOverRate() {
    WorkloadOptions o;
    o.numPrompts = 20001;
    o.requestRate = 4.0;
    o.inputLen = 1;
    o.outputLen = 1;
    o.seed = 7;
    const auto w = makeWorkload(o, {5, 6, 7}, kBos);
    QCOMPARE(w.front().arrivalTime, 0.0);
    double sum = 0, sumSq = 0;
    for (size_t i = 1; i < w.size(); ++i) {
      const double gap = w[i].arrivalTime - w[i - 1].arrivalTime;
      QVERIFY(gap >= 0);
      sum += gap;
      sumSq += gap * gap;
    }
    const double n = double(w.size() - 1), mean = sum / n;
    QVERIFY2(std::abs(mean - 0.25) < 0.0125, qPrintable(QString::number(mean)));
    const double sd = std::sqrt(sumSq / n - mean * mean);  // exponential: sd == mean
    QVERIFY2(std::abs(sd - 0.25) < 0.025, qPrintable(QString::number(sd)));
  }

  void rngIsUniformOverSmallRange() {
    WorkloadRng rng(99);
    std::vector<int> counts(5);
    for (int i = 0; i < 50000; ++i) {
      const int v = rng.uniformInt(3, 7);
      QVERIFY(v >= 3 && v <= 7);
      ++counts[v - 3];
    }
    for (int c : counts) QVERIFY(c > 9000 && c < 11000);
  }

  void parseOptions() {
    WorkloadOptions o;
    QVERIFY(parseWorkloadOption("--num-prompts", "12", &o));
    QVERIFY(parseWorkloadOption("request_rate", "inf", &o));
    QVERIFY(std::isinf(o.requestRate));
    QVERIFY(parseWorkloadOption("request-rate", "2.5", &o));
    QCOMPARE(o.requestRate, 2.5);
    QVERIFY(parseWorkloadOption("ignore-eos", "", &o));
    QVERIFY(o.ignoreEos);
    QVERIFY(parseWorkloadOption("seed", "42", &o));
    QCOMPARE(o.seed, uint64_t(42));
    QCOMPARE(o.numPrompts, 12);
    QVERIFY(!parseWorkloadOption("max-num-seqs", "4", &o));  // not a workload option
    QVERIFY(isWorkloadOption("--shared-prefix-len"));
    QVERIFY(isWorkloadOption("background_output_len"));
    QVERIFY(!isWorkloadOption("--max-num-seqs"));
    QVERIFY(errorOf([&] { parseWorkloadOption("input-len", "abc", &o); }).contains("--input-len"));
    QVERIFY(errorOf([&] { parseWorkloadOption("input-len", "12x", &o); }).contains("--input-len"));
    QVERIFY(errorOf([&] { parseWorkloadOption("seed", "-1", &o); }).contains("--seed"));
    QVERIFY(errorOf([&] { parseWorkloadOption("num-prompts", "99999999999999", &o); }).contains("--num-prompts"));
  }

  void validationNamesTheOption() {
    auto errorFor = [](auto mutate) {
      WorkloadOptions o = smallOptions();
      mutate(o);
      return errorOf([&] { o.validate(); });
    };
    QVERIFY(errorFor([](WorkloadOptions&) {}).isEmpty());
    QVERIFY(errorFor([](WorkloadOptions& o) { o.numPrompts = 0; }).contains("--num-prompts 0"));
    QVERIFY(errorFor([](WorkloadOptions& o) { o.requestRate = 0; }).contains("--request-rate"));
    QVERIFY(errorFor([](WorkloadOptions& o) { o.requestRate = std::nan(""); }).contains("--request-rate"));
    QVERIFY(errorFor([](WorkloadOptions& o) { o.inputLen = -1; }).contains("--input-len -1"));
    QVERIFY(errorFor([](WorkloadOptions& o) { o.rangeRatio = 1.0; }).contains("--range-ratio 1"));
    QVERIFY(errorFor([](WorkloadOptions& o) { o.outputLen = 0; }).contains("--output-len 0"));
    QVERIFY(errorFor([](WorkloadOptions& o) { o.sharedPrefixLen = -5; }).contains("--shared-prefix-len"));
    QVERIFY(errorFor([](WorkloadOptions& o) { o.numPrefixGroups = 41; }).contains("--num-prefix-groups 41"));
    QVERIFY(errorFor([](WorkloadOptions& o) { o.temperature = -1; }).contains("--temperature"));
    QVERIFY(errorFor([](WorkloadOptions& o) {
              o.numPrompts = 1000000;
              o.inputLen = 1000000;
            }).contains("prompt tokens"));
  }

  void backgroundRequestsComeFirst() {
    WorkloadOptions o = smallOptions();
    o.numBackgroundRequests = 3;
    o.backgroundInputLen = 5;
    o.backgroundOutputLen = 77;
    const auto w = makeWorkload(o, ordinaryIds(), kBos);
    QCOMPARE(int(w.size()), 3 + o.numPrompts);
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(w[i].group, -1);
      QCOMPARE(w[i].arrivalTime, 0.0);
      QCOMPARE(int(w[i].promptTokenIds.size()), 6);
      QCOMPARE(w[i].sampling.maxTokens, 77);
      QVERIFY(w[i].sampling.ignoreEos);
    }
    QVERIFY(w[3].arrivalTime > 0);  // the main workload starts one gap later
    for (size_t i = 1; i < w.size(); ++i) QVERIFY(w[i].arrivalTime >= w[i - 1].arrivalTime);
    // The main prompts are the same as without background requests.
    const auto plain = makeWorkload(smallOptions(), ordinaryIds(), kBos);
    for (size_t i = 0; i < plain.size(); ++i) QCOMPARE(w[i + 3].promptTokenIds, plain[i].promptTokenIds);
    WorkloadOptions bad = o;
    bad.backgroundOutputLen = 0;
    QVERIFY(errorOf([&] { bad.validate(); }).contains("--background-output-len 0"));
  }

  void clampKeepsHead() {
    auto w = makeWorkload(smallOptions(), ordinaryIds(), kBos);
    const auto before = w;
    const int n = clampPromptLengths(w, 70);
    int expected = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      QVERIFY(w[i].promptTokenIds.size() <= 70);
      if (before[i].promptTokenIds.size() > 70) ++expected;
      QVERIFY(std::equal(w[i].promptTokenIds.begin(), w[i].promptTokenIds.end(), before[i].promptTokenIds.begin()));
    }
    QCOMPARE(n, expected);
    QVERIFY(n > 0);
  }
};

QTEST_GUILESS_MAIN(TestWorkload)
#include "tst_workload.moc"
