// ArrivalPacer: the one pacing of synthetic arrivals shared by the bench runner and the
// window's load generator. Due requests come out once each and in order, the wait to
// the next is exact, an early stop leaves nothing due, and out-of-order arrival times
// are refused.
#include <QtTest>

#include "engine/bench/arrival_pacer.h"
#include "engine/common/error.h"

using namespace lwb;

namespace {

std::vector<SyntheticRequest> arrivingAt(std::vector<double> times) {
  std::vector<SyntheticRequest> w(times.size());
  for (size_t i = 0; i < times.size(); ++i) w[i].arrivalTime = times[i];
  return w;
}

}  // namespace

class TestArrivalPacer : public QObject {
  Q_OBJECT
 private slots:
  void takesEachDueRequestOnceInOrder() {
    ArrivalPacer p(arrivingAt({0.0, 0.0, 0.5, 1.0, 2.5}));
    ArrivalPacer::Range r = p.takeDue(0.0);
    QCOMPARE(r.first, size_t(0));
    QCOMPARE(r.last, size_t(2));  // a burst at t = 0 comes out at once
    QCOMPARE(p.takeDue(0.2).size(), size_t(0));
    r = p.takeDue(1.0);  // arrival == elapsed is due
    QCOMPARE(r.first, size_t(2));
    QCOMPARE(r.last, size_t(4));
    QCOMPARE(p.numTaken(), size_t(4));
    QVERIFY(!p.allTaken());
    QCOMPARE(p.takeDue(10).size(), size_t(1));
    QVERIFY(p.allTaken());
    QCOMPARE(p.takeDue(20).size(), size_t(0));
  }

  void waitsExactlyUntilTheNextArrival() {
    ArrivalPacer p(arrivingAt({0.25, 1.5}));
    QCOMPARE(*p.timeUntilNext(0.0), 0.25);
    QCOMPARE(p.takeDue(0.3).size(), size_t(1));
    QCOMPARE(*p.timeUntilNext(0.5), 1.0);
    QCOMPARE(*p.timeUntilNext(2.0), 0.0);  // overdue: at once
    p.takeDue(2.0);
    QVERIFY(!p.timeUntilNext(2.0).has_value());
  }

  // A randomized check against a direct count: however the clock advances, every
  // request is taken exactly once, never before its arrival time.
  void anyClockTakesEveryRequestOnce() {
    WorkloadOptions o;
    o.numPrompts = 300;
    o.requestRate = 50;
    o.inputLen = 4;
    o.outputLen = 2;
    std::vector<int> ids;
    for (int i = 10; i < 100; ++i) ids.push_back(i);
    const auto workload = makeWorkload(o, ids, 1);
    ArrivalPacer p(workload);
    std::vector<int> taken(workload.size(), 0);
    QRandomGenerator rng(7);
    for (double t = 0; !p.allTaken(); t += rng.generateDouble() * 0.2) {
      const ArrivalPacer::Range r = p.takeDue(t);
      for (size_t i = r.first; i < r.last; ++i) {
        QVERIFY(workload[i].arrivalTime <= t);
        ++taken[i];
      }
      if (auto wait = p.timeUntilNext(t)) QVERIFY(workload[p.numTaken()].arrivalTime - t == *wait || *wait == 0);
    }
    QCOMPARE(std::count(taken.begin(), taken.end(), 1), std::ptrdiff_t(workload.size()));
  }

  void finishLeavesNothingDue() {
    ArrivalPacer p(arrivingAt({0.0, 1.0, 2.0}));
    p.takeDue(0.0);
    p.finish();
    QVERIFY(p.allTaken());
    QCOMPARE(p.takeDue(5.0).size(), size_t(0));
    QVERIFY(!p.timeUntilNext(5.0).has_value());
    QVERIFY(ArrivalPacer().allTaken());
  }

  void refusesArrivalsOutOfOrder() {
    try {
      ArrivalPacer p(arrivingAt({0.0, 2.0, 1.0}));
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("request 2") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestArrivalPacer)
#include "tst_arrival_pacer.moc"
