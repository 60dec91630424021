// The capacity sweep shared by `bench --sweep` and the window's Capacity view
// (engine/bench/sweep.h, bench_setting.h): setting a swept key, the saturation rule on
// hand-made rows, the words it says from them (the knee, the SLO that breaks first, what
// one setting bought against another), and the file: a round trip, and a bad file refused
// naming the row and key.
#include <QtTest>

#include "engine/bench/bench_setting.h"
#include "engine/bench/sweep.h"
#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/config/knobs.h"

using namespace lwb;
using nlohmann::json;

namespace {

const std::string kRate(bench_key::kRequestRate);

// A row as a report with SLOs: served at the rate offered, `fraction` of the requests
// good, the misses all TTFT or all TPOT.
SweepPoint point(const std::string& value, double fraction, bool ttftMisses, double p99TtftMs, double p99ItlMs) {
  SweepPoint p;
  p.value = value;
  p.completed = 100;
  p.duration = 10;
  p.requestThroughput = value == "inf" ? 100 : std::stod(value);
  p.numGood = int(fraction * 100);
  p.requestGoodput = fraction * p.requestThroughput;
  p.goodputFraction = fraction;
  (ttftMisses ? p.numMissedTtft : p.numMissedTpot) = 100 - p.numGood;
  p.ttft.p99 = p99TtftMs;
  p.itl.p99 = p.tpot.p99 = p99ItlMs;
  return p;
}

// A sweep whose rows are what sweepRowJson writes for these points.
Sweep sweepOf(const std::string& key, std::vector<SweepPoint> points, const std::string& slo, int maxBatchedTokens) {
  Sweep s;
  s.key = key;
  s.goodput = parseGoodput(slo);
  s.points = std::move(points);
  for (const SweepPoint& p : s.points) {
    json row = {{"completed", p.completed}, {"duration", p.duration}, {"request_throughput", p.requestThroughput},
                {"output_throughput", p.outputThroughput}, {"request_goodput", *p.requestGoodput},
                {"request_goodput_fraction", *p.goodputFraction}, {"num_good", p.numGood},
                {"num_missed_ttft", p.numMissedTtft}, {"num_missed_tpot", p.numMissedTpot}, {"num_missed_e2el", 0},
                {"goodput", slo}, {"config", {{std::string(knob::kMaxNumBatchedTokens), maxBatchedTokens}}}};
    for (const auto& [name, l] : {std::pair{"ttft", p.ttft}, {"tpot", p.tpot}, {"itl", p.itl}, {"e2el", p.e2el}})
      for (const auto& [stat, v] : {std::pair{"mean", l.mean}, {"median", l.median}, {"p90", l.p90}, {"p99", l.p99}})
        row[std::string(stat) + "_" + name + "_ms"] = v;
    s.rows.push_back(row);
  }
  return s;
}

}  // namespace

class TestBenchSweep : public QObject {
  Q_OBJECT
 private slots:
  void settingAKeyChecksIt() {
    BenchSetting s;
    applySetting(s, kRate, "inf");
    QVERIFY(std::isinf(s.workload.requestRate));
    applySetting(s, std::string(bench_key::kMaxConcurrency), "8");
    QCOMPARE(s.maxConcurrency, 8);
    applySetting(s, std::string(knob::kMaxNumSeqs), "32");
    QCOMPARE(s.engine.maxNumSeqs, 32);
    auto refused = [&](const std::string& key, const std::string& value, const QString& message) {
      try {
        applySetting(s, key, value);
        QFAIL("accepted");
      } catch (const Error& e) {
        QVERIFY2(QString(e.what()).contains(message), e.what());
      }
    };
    refused(kRate, "0", "--request-rate 0");
    refused(std::string(bench_key::kMaxConcurrency), "0", "expected a whole number >= 1");
    refused(std::string(knob::kMaxNumSeqs), "-1", QString::fromStdString(std::string(knob::kMaxNumSeqs)));
    refused("max_num_sequences", "4", "max_num_sequences: not a knob");
  }

  void valuesNormalise() {
    QCOMPARE(normalizeSweepValue("4.0"), std::string("4"));
    QCOMPARE(normalizeSweepValue("0.50"), std::string("0.5"));
    QCOMPARE(normalizeSweepValue("1e3"), std::string("1000"));
    QCOMPARE(normalizeSweepValue("inf"), std::string("inf"));
    QCOMPARE(normalizeSweepValue("fcfs"), std::string("fcfs"));
    QVERIFY(sweepValueJson("8").is_number() && sweepValueJson("inf").is_string());
    QVERIFY(std::isinf(*sweepRate("inf")));
    QVERIFY(!sweepRate("fast"));
  }

  // The largest rate with >= 90 % good, wherever it stands in the order run; none without
  // SLOs or for another key.
  void saturationIsTheLargestRateWithinTheSlos() {
    const Sweep s = sweepOf(kRate, {point("16", 0.5, true, 900, 20), point("2", 1.0, true, 40, 20),
                                    point("8", 0.9, false, 300, 45), point("4", 0.95, false, 80, 30)},
                            "ttft:500 tpot:50", 2048);
    QCOMPARE(s.saturation(), std::optional<size_t>(2));
    QCOMPARE(saturationIndex(kRate, s.points, false), std::nullopt);
    QCOMPARE(saturationIndex(std::string(knob::kMaxNumSeqs), s.points, true), std::nullopt);
    const QString words = QString::fromStdString(sweepLesson(s));
    QVERIFY2(words.startsWith("Saturation: up to 8 req/s, at least 90 % of the completed requests met every SLO "
                              "(ttft:500 tpot:50)."), qPrintable(words));
    // The first rate past the knee that fails (16), and the SLO most of its misses broke.
    QVERIFY2(words.contains("TTFT breaks first: at 16 req/s 50 % of the completed requests missed ttft:500 ms "
                            "(p99 TTFT 900.0 ms)."), qPrintable(words));
    QVERIFY2(words.contains("Goodput peaks at 16 req/s: 8.00 req/s."), qPrintable(words));
  }

  void noRateWithinTheSlos() {
    const Sweep s = sweepOf(kRate, {point("2", 0.5, false, 40, 90)}, "tpot:50", 2048);
    QCOMPARE(s.saturation(), std::nullopt);
    const QString words = QString::fromStdString(sweepLesson(s));
    QVERIFY2(words.startsWith("Saturation: at no swept rate did 90 %"), qPrintable(words));
    QVERIFY2(words.contains("TPOT breaks first: at 2 req/s 50 %"), qPrintable(words));
  }

  // A knob sweep has no saturation point: the words name each setting that missed.
  void knobSweepNamesTheSettingsThatMissed() {
    const std::string seqs(knob::kMaxNumSeqs);
    const Sweep s = sweepOf(seqs, {point("128", 0.4, true, 900, 20), point("512", 1.0, true, 100, 20)},
                            "ttft:500 tpot:50", 2048);
    QCOMPARE(s.saturation(), std::nullopt);
    const QString words = QString::fromStdString(sweepLesson(s));
    QVERIFY2(words.startsWith(QString::fromStdString("At " + seqs + " = 128, 60 % of the completed requests missed "
                                                     "ttft:500 ms (p99 TTFT 900.0 ms).")),
             qPrintable(words));
    QVERIFY2(!words.contains("512,") && !words.contains("breaks first"), qPrintable(words));
  }

  void comparisonSaysWhatTheSettingBought() {
    const Sweep a = sweepOf(kRate, {point("4", 1.0, true, 50, 30), point("6", 0.95, true, 200, 45),
                                    point("8", 0.4, false, 400, 90)},
                            "ttft:500 tpot:50", 512);
    const Sweep b = sweepOf(kRate, {point("4", 1.0, true, 40, 45), point("6", 0.6, false, 100, 70),
                                    point("8", 0.2, false, 300, 120)},
                            "ttft:500 tpot:50", 2048);
    const QString words = QString::fromStdString(sweepComparison(a, b));
    const QString knob = QString::fromStdString(std::string(knob::kMaxNumBatchedTokens));
    QCOMPARE(words, knob + " 512 (A) instead of 2048 (B): every SLO held up to 6 req/s instead of 4. At 8 req/s, "
                           "p99 TTFT 400 ms instead of 300, p99 ITL 90 ms instead of 120.");
  }

  void fileRoundTrips() {
    const Sweep s = sweepOf(kRate, {point("2", 1.0, true, 40, 20), point("inf", 0.3, true, 900, 20)},
                            "ttft:500 tpot:50", 2048);
    const json j = sweepJson(s);
    QCOMPARE(j["sweep"]["knob"].get<std::string>(), kRate);
    QVERIFY(j["sweep"]["values"][0].is_number() && j["sweep"]["values"][1] == "inf");
    QCOMPARE(j["saturation_request_rate"].get<double>(), 2.0);
    const Sweep back = sweepFromJson(parseJson(j.dump()));
    QVERIFY(back.points == s.points);
    QCOMPARE(back.goodput->describe(), s.goodput->describe());
    QCOMPARE(back.saturation(), s.saturation());
  }

  void badFileNamesTheRowAndKey() {
    const Sweep s = sweepOf(kRate, {point("2", 1.0, true, 40, 20), point("4", 1.0, true, 40, 20)}, "ttft:500", 2048);
    auto refused = [](const json& j, const QString& message) {
      try {
        sweepFromJson(j);
        QFAIL("accepted");
      } catch (const Error& e) {
        QVERIFY2(QString(e.what()).contains(message), e.what());
      }
    };
    json j = sweepJson(s);
    j["rows"][1].erase("p99_ttft_ms");
    refused(j, "rows[1]: missing \"p99_ttft_ms\"");
    j = sweepJson(s);
    j["rows"][0]["completed"] = "many";
    refused(j, "rows[0].completed: expected a number, found \"many\"");
    j = sweepJson(s);
    j["sweep"]["values"].erase(1);
    refused(j, "sweep.values and rows: expected two arrays of the same length");
    refused(json{{"requests", json::array()}}, "expected an object with \"sweep\" and \"rows\"");
  }
};

QTEST_MAIN(TestBenchSweep)
#include "tst_bench_sweep.moc"
