// The speculation warning rule (engine/metrics/spec_decode_monitor.h) on scripted step
// records: the window's sums, the threshold with its hysteresis, the minimum sample,
// steps without verifications, and reset.
#include <QtTest>

#include "engine/metrics/spec_decode_monitor.h"

using namespace lwb;

namespace {
// One step with `drafts` verifications of k = 4 tokens each, `accepted` accepted in all.
StepRecord verified(int drafts, int accepted) {
  StepRecord s;
  s.numSpecDrafts = drafts;
  s.numSpecTokens = 4 * drafts;
  s.numAcceptedSpecTokens = accepted;
  return s;
}
}  // namespace

class TestSpecDecodeMonitor : public QObject {
  Q_OBJECT
 private slots:
  void emptyMonitorIsNeutral() {
    SpecDecodeMonitor m;
    QCOMPARE(m.numDrafts(), int64_t(0));
    QCOMPARE(m.acceptanceRate(), 0.0);
    QCOMPARE(m.meanAcceptanceLength(), 1.0);
    QVERIFY(!m.warning());
  }

  void sumsMatchHandComputedValues() {
    SpecDecodeMonitor m(100, 1);
    m.observe(verified(2, 6));  // 8 draft tokens, 6 accepted
    m.observe(verified(1, 0));
    QCOMPARE(m.numDrafts(), int64_t(3));
    QCOMPARE(m.numDraftTokens(), int64_t(12));
    QCOMPARE(m.numAcceptedTokens(), int64_t(6));
    QCOMPARE(m.acceptanceRate(), 0.5);
    QCOMPARE(m.meanAcceptanceLength(), 3.0);
  }

  void stepsWithoutVerificationsChangeNothing() {
    SpecDecodeMonitor m(100, 1);
    m.observe(verified(1, 3));
    StepRecord prefillOnly;
    prefillOnly.numPrefillTokens = 128;
    m.observe(prefillOnly);
    QCOMPARE(m.numDrafts(), int64_t(1));
    QCOMPARE(m.meanAcceptanceLength(), 4.0);
  }

  void windowKeepsTheNewestVerifications() {
    SpecDecodeMonitor m(10, 1);
    for (int i = 0; i < 10; ++i) m.observe(verified(1, 4));  // all accepted: length 5
    QCOMPARE(m.meanAcceptanceLength(), 5.0);
    for (int i = 0; i < 10; ++i) m.observe(verified(1, 0));  // none: the old ones leave
    QCOMPARE(m.numDrafts(), int64_t(10));
    QCOMPARE(m.meanAcceptanceLength(), 1.0);
    QCOMPARE(m.acceptanceRate(), 0.0);
  }

  void warnsBelowThresholdOnlyWithEnoughVerifications() {
    SpecDecodeMonitor m(256, 64);
    for (int i = 0; i < 63; ++i) m.observe(verified(1, 0));
    QVERIFY2(!m.warning(), "63 verifications are too few to judge");
    m.observe(verified(1, 0));
    QVERIFY(m.warning());
    QCOMPARE(m.meanAcceptanceLength(), 1.0);
  }

  void thresholdIsStrictAndClearsWithHysteresis() {
    // 10 verifications per step, window of 100: mean length = 1 + accepted / 10.
    SpecDecodeMonitor m(100, 10);
    m.observe(verified(10, 3));  // exactly 1.3: not below
    QVERIFY(!m.warning());
    for (int i = 0; i < 10; ++i) m.observe(verified(10, 2));  // 1.2
    QVERIFY(m.warning());
    QVERIFY(m.meanAcceptanceLength() < SpecDecodeMonitor::kWarnBelow);
    for (int i = 0; i < 10; ++i) m.observe(verified(10, 3));  // back at 1.3 < 1.4: still warned
    QCOMPARE(m.meanAcceptanceLength(), 1.3);
    QVERIFY(m.warning());
    for (int i = 0; i < 10; ++i) m.observe(verified(10, 4));  // 1.4 clears
    QCOMPARE(m.meanAcceptanceLength(), 1.4);
    QVERIFY(!m.warning());
  }

  void resetForgetsWindowAndWarning() {
    SpecDecodeMonitor m(100, 1);
    m.observe(verified(5, 0));
    QVERIFY(m.warning());
    m.reset();
    QVERIFY(!m.warning());
    QCOMPARE(m.numDrafts(), int64_t(0));
    m.observe(verified(1, 4));
    QCOMPARE(m.meanAcceptanceLength(), 5.0);
  }
};

QTEST_GUILESS_MAIN(TestSpecDecodeMonitor)
#include "tst_spec_decode_monitor.moc"
