// Percentiles and summaries (numpy "linear" semantics), histograms, the ring buffer,
// and vLLM's request metric definitions on hand-made timelines.
#include <QtTest>

#include <cmath>

#include "engine/common/error.h"
#include "engine/metrics/caching_metrics.h"
#include "engine/metrics/histogram.h"
#include "engine/metrics/records.h"
#include "engine/metrics/stats.h"

using namespace lwb;

class TestMetrics : public QObject {
  Q_OBJECT

 private slots:
  void percentileEmptyAndSingle() {
    QCOMPARE(percentile({}, 50), 0.0);
    QCOMPARE(percentile({}, 99), 0.0);
    QCOMPARE(percentile({7.5}, 0), 7.5);
    QCOMPARE(percentile({7.5}, 50), 7.5);
    QCOMPARE(percentile({7.5}, 99), 7.5);
  }

  // numpy.percentile([1, 2, 3, 4], q): 50 → 2.5, 90 → 3.7, 99 → 3.97, 0 → 1, 100 → 4.
  void percentileInterpolatesLinearly() {
    const std::vector<double> v = {4, 1, 3, 2};  // unsorted on purpose
    QCOMPARE(percentile(v, 0), 1.0);
    QCOMPARE(percentile(v, 50), 2.5);
    QVERIFY(std::abs(percentile(v, 90) - 3.7) < 1e-12);
    QVERIFY(std::abs(percentile(v, 99) - 3.97) < 1e-12);
    QCOMPARE(percentile(v, 100), 4.0);
    // numpy.percentile([10, 20, 30, 40, 50], 25) = 20, 30 → 22
    QCOMPARE(percentile({10, 20, 30, 40, 50}, 25), 20.0);
    QVERIFY(std::abs(percentile({10, 20, 30, 40, 50}, 30) - 22.0) < 1e-12);
  }

  void percentileMatchesNumpyOnLargerSample() {
    std::vector<double> v;
    for (int i = 1; i <= 101; ++i) v.push_back(i * i);  // 1, 4, ..., 10201
    // h = 100 * 0.99 = 99 exactly → v[99] = 100² ; median = 51²
    QCOMPARE(percentile(v, 99), 10000.0);
    QCOMPARE(percentile(v, 50), 2601.0);
    // h = 100 * 0.9 = 90 → 91²
    QVERIFY(std::abs(percentile(v, 90) - 8281.0) < 1e-9);
  }

  void summaryFields() {
    const Summary empty = summarize({});
    QCOMPARE(empty.count, size_t(0));
    QCOMPARE(empty.mean, 0.0);
    QCOMPARE(empty.p99, 0.0);
    const Summary one = summarize({3.0});
    QCOMPARE(one.count, size_t(1));
    QCOMPARE(one.mean, 3.0);
    QCOMPARE(one.std, 0.0);
    QCOMPARE(one.median, 3.0);
    QCOMPARE(one.p99, 3.0);
    const Summary s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
    QCOMPARE(s.mean, 5.0);
    QCOMPARE(s.std, 2.0);  // population std, as numpy.std
    QCOMPARE(s.median, 4.5);
    QCOMPARE(s.min, 2.0);
    QCOMPARE(s.max, 9.0);
  }

  void histogramBucketsAreLessOrEqual() {
    Histogram h({0.1, 0.5, 1.0});
    for (double v : {0.05, 0.1, 0.3, 0.5, 2.0}) h.observe(v);
    QCOMPARE(h.count(), uint64_t(5));
    QVERIFY(std::abs(h.sum() - 2.95) < 1e-12);
    QCOMPARE(h.bucketCounts(), (std::vector<uint64_t>{2, 2, 0, 1}));
    QCOMPARE(h.cumulativeCounts(), (std::vector<uint64_t>{2, 4, 4, 5}));
    h.clear();
    QCOMPARE(h.count(), uint64_t(0));
    QVERIFY_THROWS_EXCEPTION(Error, Histogram({1.0, 1.0}));
    QVERIFY_THROWS_EXCEPTION(Error, Histogram(std::vector<double>{}));
    QVERIFY(Histogram::ttftBuckets().size() > 10);
  }

  // arrival 1.0, scheduled 1.5, tokens at 2.0, 2.5, 3.5, 4.0, finished at 4.25.
  void timelineDefinitions() {
    RequestTimeline t;
    t.arrivalTime = 1.0;
    t.firstScheduledTime = 1.5;
    t.firstTokenTime = 2.0;
    t.tokenTimes = {2.0, 2.5, 3.5, 4.0};
    t.numOutputTokens = 4;
    QVERIFY(!t.e2e());   // defined at the finish
    QVERIFY(!t.tpot());
    t.finishTime = 4.25;
    QCOMPARE(*t.queueTime(), 0.5);
    QCOMPARE(*t.ttft(), 1.0);
    QCOMPARE(*t.e2e(), 3.25);  // finish − arrival
    QCOMPARE(*t.prefillTime(), 0.5);
    QCOMPARE(*t.decodeTime(), 2.0);
    QCOMPARE(*t.inferenceTime(), 2.5);  // last token − first scheduled
    QCOMPARE(*t.tpot(), 2.0 / 3.0);     // decode time / (4 − 1)
    QCOMPARE(t.itls(), (std::vector<double>{0.5, 1.0, 0.5}));
  }

  // vLLM records TPOT 0 for a finished request with one token (no decode).
  void timelineWithOneToken() {
    RequestTimeline t;
    t.arrivalTime = 0.0;
    t.firstScheduledTime = 0.25;
    t.firstTokenTime = 0.75;
    t.tokenTimes = {0.75};
    t.numOutputTokens = 1;
    t.finishTime = 0.75;
    QCOMPARE(*t.ttft(), 0.75);
    QCOMPARE(*t.e2e(), 0.75);
    QCOMPARE(*t.tpot(), 0.0);
    QVERIFY(t.itls().empty());
    QCOMPARE(*t.decodeTime(), 0.0);
  }

  // Aborted while waiting: every finished request is recorded (e2e, TPOT 0), with no
  // TTFT, queue or prefill time.
  void timelineAbortedBeforeItsFirstToken() {
    RequestTimeline t;
    t.arrivalTime = 2.0;
    t.finishTime = 2.5;
    t.finishReason = FinishReason::Abort;
    QCOMPARE(*t.e2e(), 0.5);
    QCOMPARE(*t.tpot(), 0.0);
    QVERIFY(!t.ttft());
    QVERIFY(!t.queueTime());
    QVERIFY(!t.prefillTime());
    QVERIFY(!t.decodeTime());
    QVERIFY(!t.inferenceTime());
  }

  void timelineNotStarted() {
    RequestTimeline t;
    t.arrivalTime = 3.0;
    QVERIFY(!t.queueTime());
    QVERIFY(!t.ttft());
    QVERIFY(!t.e2e());
    QVERIFY(!t.tpot());
    QVERIFY(!t.prefillTime());
    QVERIFY(!t.decodeTime());
    QVERIFY(t.itls().empty());
    t.firstScheduledTime = 3.5;  // scheduled, no token yet
    QCOMPARE(*t.queueTime(), 0.5);
    QVERIFY(!t.ttft());
  }

  // vLLM's CachingMetrics: hits / queries over the most recent requests; the oldest
  // observations drop out past the limit, the newest always stays.
  void recentHitRateCoversTheLastRequests() {
    CachingMetrics m(10);
    QCOMPARE(m.hitRate(), 0.0);
    m.observe(0, 0, 0);  // a step without lookups: ignored
    m.observe(4, 400, 400);
    m.observe(4, 400, 0);
    QCOMPARE(m.numRequests(), int64_t(8));
    QCOMPARE(m.hitRate(), 0.5);
    m.observe(4, 200, 100);  // 12 > 10: the first observation drops out
    QCOMPARE(m.numRequests(), int64_t(8));
    QCOMPARE(m.numQueryTokens(), int64_t(600));
    QCOMPARE(m.hitRate(), 100.0 / 600.0);
    m.observe(30, 300, 300);  // alone over the limit: kept
    QCOMPARE(m.numRequests(), int64_t(30));
    QCOMPARE(m.hitRate(), 1.0);
    m.reset();
    QCOMPARE(m.numRequests(), int64_t(0));
  }

  void names() {
    QCOMPARE(requestStateName(RequestState::Waiting), std::string("waiting"));
    QCOMPARE(requestStateName(RequestState::Preempted), std::string("preempted"));
    QCOMPARE(finishReasonName(FinishReason::Stop), std::string("stop"));
    QCOMPARE(finishReasonName(FinishReason::Length), std::string("length"));
    QCOMPARE(finishReasonName(FinishReason::Rejected), std::string("rejected"));
    QCOMPARE(finishReasonName(FinishReason::Abort), std::string("abort"));
  }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
