// Capacity under SLOs in `bench`: goodput with vLLM's arithmetic (engine/bench/goodput.h)
// on hand-computed request sets, --goodput's syntax and errors, `bench --goodput`,
// `--sweep` (one row per value, the saturation point consistent with the rows, the file
// as the window reopens it, bad keys and values refused before any run),
// `--max-concurrency` and `--search` (the grid ranked by goodput, default candidates), on
// the bundled model.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "common/cli_runner.h"
#include "engine/bench/bench_report.h"
#include "engine/bench/goodput.h"
#include "engine/bench/sweep.h"
#include "engine/common/json.h"
#include "engine/common/error.h"

using namespace lwb;

namespace {

// A request that arrived at 0 and produced tokens at the given times (seconds).
RequestTimeline request(std::vector<double> tokenTimes, FinishReason reason = FinishReason::Length) {
  RequestTimeline t;
  t.arrivalTime = 0;
  t.firstScheduledTime = 0;
  t.tokenTimes = tokenTimes;
  t.numOutputTokens = int(tokenTimes.size());
  if (!tokenTimes.empty()) t.firstTokenTime = tokenTimes.front();
  t.finishTime = tokenTimes.empty() ? 0.5 : tokenTimes.back();
  t.finishReason = reason;
  return t;
}

BenchReport reportOf(const std::vector<RequestTimeline>& timelines, double duration) {
  std::vector<BenchRequestRecord> records;
  for (const auto& t : timelines) records.push_back({t, {}});
  return makeBenchReport(std::move(records), {}, duration);
}

class TestBenchCapacity : public QObject {
  Q_OBJECT

 private slots:
  void parsesVllmSyntax();
  void badSpecNamesTheItem_data();
  void badSpecNamesTheItem();
  void handComputedRequestSet();
  void boundaryValuesAreGood();
  void noSloLeavesTheKeysNull();
  void benchRefusesABadSloBeforeRunning();
  void benchWritesGoodput();
  void sweepWritesOneRowPerValue();
  void sweepOfAKnobSetsIt();
  void sweepRefusesBadInputBeforeRunning_data();
  void sweepRefusesBadInputBeforeRunning();
  void maxConcurrencyOneRunsRequestsOneAtATime();
  void searchRanksTheGridByGoodput();
  void searchCandidatesAroundTheDefault();
};

void TestBenchCapacity::parsesVllmSyntax() {
  const GoodputSlo a = parseGoodput("ttft:500 tpot:50");
  QCOMPARE(a.ttftMs.value(), 500.0);
  QCOMPARE(a.tpotMs.value(), 50.0);
  QVERIFY(!a.e2elMs);
  const GoodputSlo b = parseGoodput("e2el:2500.5,ttft:0");
  QCOMPARE(b.e2elMs.value(), 2500.5);
  QCOMPARE(b.ttftMs.value(), 0.0);
  QCOMPARE(QString::fromStdString(b.describe()), QString("ttft:0 e2el:2500.5"));
}

void TestBenchCapacity::badSpecNamesTheItem_data() {
  QTest::addColumn<QString>("spec");
  QTest::addColumn<QString>("message");
  QTest::newRow("unknown metric") << "ttft:5 itl:5" << "--goodput itl:5: unknown metric 'itl' (expected ttft, tpot or e2el)";
  QTest::newRow("negative") << "tpot:-1" << "--goodput tpot:-1: '-1' is not a number of milliseconds >= 0";
  QTest::newRow("not a number") << "ttft:fast" << "--goodput ttft:fast: 'fast' is not a number";
  QTest::newRow("no colon") << "ttft" << "--goodput ttft: expected KEY:MILLISECONDS";
  QTest::newRow("empty") << "" << "--goodput: expected at least one";
}

void TestBenchCapacity::badSpecNamesTheItem() {
  QFETCH(QString, spec);
  QFETCH(QString, message);
  try {
    parseGoodput(spec.toStdString());
    QFAIL("accepted");
  } catch (const Error& e) {
    QVERIFY2(QString(e.what()).startsWith(message), e.what());
  }
}

void TestBenchCapacity::handComputedRequestSet() {
  // SLOs: TTFT <= 100 ms, TPOT <= 20 ms.
  const GoodputSlo slo = parseGoodput("ttft:100 tpot:20");
  const std::vector<RequestTimeline> set = {
      request({0.05, 0.06, 0.07}),         // TTFT 50, TPOT 10: good
      request({0.08, 0.13, 0.18}),         // TTFT 80 met, TPOT 50 missed: not good
      request({0.15, 0.16}),               // TTFT 150 missed, TPOT 10: not good
      request({0.09}),                     // one token: TPOT 0, TTFT 90: good
      request({0.01}, FinishReason::Abort),  // aborted: not completed, never good
      request({0.02, 0.03}, FinishReason::Stop),  // TTFT 20, TPOT 10: good
  };
  QVERIFY(meetsSlo(set[0], slo));
  QVERIFY(!meetsSlo(set[1], slo));
  QVERIFY(!meetsSlo(set[2], slo));
  QVERIFY(meetsSlo(set[3], slo));
  QVERIFY(!meetsSlo(set[4], slo));
  BenchReport r = reportOf(set, 2.0);
  applyGoodput(r, slo);
  QCOMPARE(r.completed, 5);
  QCOMPARE(r.numGood, 3);
  QCOMPARE(r.requestGoodput, 1.5);              // 3 good in 2 s
  QCOMPARE(r.requestGoodputFraction, 3.0 / 5);  // of the completed
  const nlohmann::json j = benchReportJson(r);
  QCOMPARE(j["request_goodput"].get<double>(), 1.5);
  QCOMPARE(j["request_goodput_fraction"].get<double>(), 0.6);
  QCOMPARE(j["goodput"].get<std::string>(), std::string("ttft:100 tpot:20"));
  const QString summary = QString::fromStdString(formatBenchSummary(r));
  QVERIFY2(summary.contains(QRegularExpression("Request goodput \\(req/s\\): +1\\.50")), qPrintable(summary));
  QVERIFY2(summary.contains("60.0 % (3 of 5; ttft:100 tpot:20)"), qPrintable(summary));
  // With an end-to-end SLO of 60 ms as well, only the request that finished at 30 ms stays
  // good (the other two finished at 70 and 90 ms).
  applyGoodput(r, parseGoodput("ttft:100 tpot:20 e2el:60"));
  QCOMPARE(r.numGood, 1);
}

void TestBenchCapacity::boundaryValuesAreGood() {
  // vLLM counts a request as good when its value is at most the SLO. (0.25 s and 0.125 s
  // are exact in binary, so TTFT is exactly 250 ms and TPOT exactly 125 ms.)
  const RequestTimeline t = request({0.25, 0.375});
  QVERIFY(meetsSlo(t, parseGoodput("ttft:250 tpot:125 e2el:375")));
  QVERIFY(!meetsSlo(t, parseGoodput("ttft:249.9")));
  QVERIFY(!meetsSlo(t, parseGoodput("tpot:124.9")));
  QVERIFY(!meetsSlo(t, parseGoodput("e2el:374.9")));
}

void TestBenchCapacity::noSloLeavesTheKeysNull() {
  const BenchReport r = reportOf({request({0.1})}, 1.0);
  const nlohmann::json j = benchReportJson(r);
  QVERIFY(j.contains("request_goodput") && j["request_goodput"].is_null());
  QVERIFY(j["request_goodput_fraction"].is_null());
  QVERIFY(!QString::fromStdString(formatBenchSummary(r)).contains("goodput"));
}

void TestBenchCapacity::benchRefusesABadSloBeforeRunning() {
  // A workload that would take hours: refused on its arguments alone.
  const test::CliResult r = test::runWorkbench(
      {"bench", "--num-prompts", "100000", "--request-rate", "0.01", "--goodput", "ttft:100", "p99_itl:5"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("unknown metric 'p99_itl'"), r.err.constData());
  QVERIFY(r.out.isEmpty());
}

void TestBenchCapacity::benchWritesGoodput() {
  if (test::defaultModelInBuildTree().isEmpty()) QSKIP("the bundled model is not in the build tree");
  QTemporaryDir dir;
  const QString json = dir.filePath("run.json");
  // An SLO nothing can meet, and one everything meets: 0 and all of the completed.
  for (const auto& [spec, fraction] : {std::pair{QString("ttft:0"), 0.0}, std::pair{QString("e2el:600000"), 1.0}}) {
    const test::CliResult r =
        test::runWorkbench({"bench", "--num-prompts", "6", "--request-rate", "inf", "--input-len", "16", "--output-len",
                            "4", "--ignore-eos", "--quiet", "--json", json, "--goodput", spec});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("Request goodput (req/s):"), r.out.constData());
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(o["completed"].toInt(), 6);
    QCOMPARE(o["request_goodput_fraction"].toDouble(), fraction);
    QCOMPARE(o["request_goodput"].toDouble(), fraction * o["request_throughput"].toDouble());
    QCOMPARE(o["goodput"].toString(), spec);
  }
}

QJsonObject readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

const QStringList kSmallWorkload = {"--num-prompts", "8", "--input-len", "16", "--output-len", "6", "--ignore-eos", "--quiet"};

void TestBenchCapacity::sweepWritesOneRowPerValue() {
  if (test::defaultModelInBuildTree().isEmpty()) QSKIP("the bundled model is not in the build tree");
  QTemporaryDir dir;
  const QString json = dir.filePath("sweep.json");
  const test::CliResult r = test::runWorkbench(QStringList{"bench", "--sweep", "request_rate=5,50,inf", "--goodput",
                                                           "ttft:40", "--json", json} + kSmallWorkload);
  QVERIFY2(r.exitCode == 0, r.err.constData());
  QVERIFY2(r.out.contains("Sweep of request_rate") && r.out.contains("Saturation:"), r.out.constData());
  const QJsonObject o = readJson(json);
  QCOMPARE(o["sweep"].toObject()["knob"].toString(), QString("request_rate"));
  const QJsonArray values = o["sweep"].toObject()["values"].toArray();
  const QJsonArray rows = o["rows"].toArray();
  QCOMPARE(values.size(), 3);
  QCOMPARE(rows.size(), 3);
  QCOMPARE(values[0].toDouble(), 5.0);
  QCOMPARE(values[2].toString(), QString("inf"));
  // The saturation point: the largest rate whose row kept >= 90 % within the SLOs.
  QJsonValue expected = QJsonValue::Null;
  for (int i = 0; i < rows.size(); ++i) {
    const QJsonObject row = rows[i].toObject();
    QCOMPARE(row["completed"].toInt(), 8);
    for (const char* key : {"request_throughput", "request_goodput", "request_goodput_fraction", "p99_ttft_ms", "mean_itl_ms"})
      QVERIFY2(row.contains(key), key);
    QCOMPARE(row["config"].toObject()["request_rate"].toVariant(), values[i].toVariant());
    if (row["request_goodput_fraction"].toDouble() >= 0.9) expected = values[i];
  }
  QCOMPARE(o["saturation_request_rate"], expected);
  // The window's Capacity view opens the same file (engine/bench/sweep.h), to the same point.
  const Sweep back = sweepFromJson(readJsonFile(json.toStdString()));
  QCOMPARE(int(back.points.size()), 3);
  QCOMPARE(back.goodput->describe(), std::string("ttft:40"));
  const auto sat = back.saturation();
  QCOMPARE(sat.has_value(), !expected.isNull());
  if (sat)
    QCOMPARE(QString::fromStdString(back.points[*sat].value),
             expected.isString() ? expected.toString() : QString::number(expected.toDouble()));
}

void TestBenchCapacity::sweepOfAKnobSetsIt() {
  if (test::defaultModelInBuildTree().isEmpty()) QSKIP("the bundled model is not in the build tree");
  QTemporaryDir dir;
  const QString json = dir.filePath("sweep.json");
  const test::CliResult r =
      test::runWorkbench(QStringList{"bench", "--sweep", "max_num_seqs=1,4", "--json", json} + kSmallWorkload);
  QVERIFY2(r.exitCode == 0, r.err.constData());
  const QJsonObject o = readJson(json);
  const QJsonArray rows = o["rows"].toArray();
  QCOMPARE(rows.size(), 2);
  QCOMPARE(rows[0].toObject()["config"].toObject()["max_num_seqs"].toInt(), 1);
  QCOMPARE(rows[1].toObject()["config"].toObject()["max_num_seqs"].toInt(), 4);
  QVERIFY(o["saturation_request_rate"].isNull());  // only a request_rate sweep has one
  QVERIFY(rows[0].toObject()["request_goodput"].isNull());  // no --goodput
}

void TestBenchCapacity::sweepRefusesBadInputBeforeRunning_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("message");
  QTest::newRow("unknown knob") << QStringList{"--sweep", "max_num_batched_token=512"}
                                << "--sweep max_num_batched_token: not a knob";
  QTest::newRow("out of range") << QStringList{"--sweep", "max_num_seqs=4,-1"} << "--sweep max_num_seqs=-1: max_num_seqs";
  QTest::newRow("not a power of two") << QStringList{"--sweep", "block_size=16,24"} << "block_size: 24 is not a power of two";
  QTest::newRow("bad rate") << QStringList{"--sweep", "request_rate=1,0"} << "--sweep request_rate=0";
  QTest::newRow("no values") << QStringList{"--sweep", "max_num_seqs"} << "expected KEY=V1,V2";
  QTest::newRow("trace") << QStringList{"--sweep", "max_num_seqs=1,2", "--trace", "t.json"} << "--trace and --csv";
  QTest::newRow("bad SLO") << QStringList{"--sweep", "request_rate=1,2", "--goodput", "ttft:5", "itl:5"} << "unknown metric 'itl'";
  QTest::newRow("knob against a server") << QStringList{"--endpoint", "http://127.0.0.1:9", "--sweep", "max_num_seqs=1,2"}
                                         << "--sweep max_num_seqs: an engine knob cannot be swept against --endpoint";
  QTest::newRow("search without SLOs") << QStringList{"--search", "max_num_seqs=1,2"} << "give --goodput";
  QTest::newRow("search unknown knob") << QStringList{"--search", "max_num_seq", "--goodput", "ttft:5"}
                                       << "--search max_num_seq: not a knob";
  QTest::newRow("search bad value") << QStringList{"--search", "max_num_seqs=2", "block_size=3", "--goodput", "ttft:5"}
                                    << "block_size: 3 is not a power of two";
  QTest::newRow("search and sweep") << QStringList{"--search", "max_num_seqs=2", "--sweep", "request_rate=1", "--goodput", "ttft:5"}
                                    << "give one of them";
  QTest::newRow("search against a server")
      << QStringList{"--endpoint", "http://127.0.0.1:9", "--search", "max_num_seqs=1,2", "--goodput", "ttft:5"}
      << "engine knobs cannot be searched against --endpoint";
}

void TestBenchCapacity::sweepRefusesBadInputBeforeRunning() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  // A workload that would take hours at these rates: refused on its arguments alone.
  const test::CliResult r =
      test::runWorkbench(QStringList{"bench", "--num-prompts", "100000", "--request-rate", "0.01"} + args, 60000);
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
  QVERIFY(r.out.isEmpty());
}

void TestBenchCapacity::maxConcurrencyOneRunsRequestsOneAtATime() {
  if (test::defaultModelInBuildTree().isEmpty()) QSKIP("the bundled model is not in the build tree");
  QTemporaryDir dir;
  const QString json = dir.filePath("run.json");
  const test::CliResult r = test::runWorkbench(
      QStringList{"bench", "--request-rate", "inf", "--max-concurrency", "1", "--json", json} + kSmallWorkload);
  QVERIFY2(r.exitCode == 0, r.err.constData());
  const QJsonObject o = readJson(json);
  QCOMPARE(o["config"].toObject()["max_concurrency"].toInt(), 1);
  const QJsonArray requests = o["requests"].toArray();
  QCOMPARE(requests.size(), 8);
  // Each request is sent (and timed) only once the one before it finished.
  for (int i = 1; i < requests.size(); ++i) {
    const QJsonObject prev = requests[i - 1].toObject(), cur = requests[i].toObject();
    const double prevFinish = prev["arrival_time"].toDouble() + prev["e2el_ms"].toDouble() / 1000.0;
    QVERIFY2(cur["arrival_time"].toDouble() >= prevFinish - 1e-6,
             qPrintable(QString("request %1 sent at %2 s, the one before finished at %3 s")
                            .arg(i)
                            .arg(cur["arrival_time"].toDouble())
                            .arg(prevFinish)));
  }
}

void TestBenchCapacity::searchRanksTheGridByGoodput() {
  if (test::defaultModelInBuildTree().isEmpty()) QSKIP("the bundled model is not in the build tree");
  QTemporaryDir dir;
  const QString json = dir.filePath("search.json");
  const test::CliResult r = test::runWorkbench(QStringList{"bench", "--request-rate", "60", "--search",
                                                           "max_num_batched_tokens=64,512", "max_num_seqs=2,16",
                                                           "--goodput", "ttft:40", "tpot:10", "--json", json} +
                                               kSmallWorkload);
  QVERIFY2(r.exitCode == 0, r.err.constData());
  QVERIFY2(r.out.contains("Best: ") && r.out.contains("Runner-up: "), r.out.constData());
  const QJsonObject o = readJson(json);
  const QJsonArray rows = o["rows"].toArray();
  QCOMPARE(rows.size(), 4);
  QCOMPARE(o["search"].toObject()["method"].toString(), QString("grid"));
  // Best and runner-up: the two highest goodputs (then throughput), each with its setting.
  QList<QJsonObject> ranked;
  for (const QJsonValue& v : rows) {
    const QJsonObject row = v.toObject();
    const QJsonObject setting = row["setting"].toObject();
    QCOMPARE(setting.size(), 2);
    QCOMPARE(row["config"].toObject()["max_num_seqs"].toInt(), setting["max_num_seqs"].toString().toInt());
    ranked << row;
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const QJsonObject& a, const QJsonObject& b) {
    if (a["request_goodput"].toDouble() != b["request_goodput"].toDouble())
      return a["request_goodput"].toDouble() > b["request_goodput"].toDouble();
    return a["request_throughput"].toDouble() > b["request_throughput"].toDouble();
  });
  QCOMPARE(o["best"].toObject()["setting"].toObject(), ranked[0]["setting"].toObject());
  QCOMPARE(o["runner_up"].toObject()["setting"].toObject(), ranked[1]["setting"].toObject());
  QVERIFY(!o["reason"].toString().isEmpty());
}

void TestBenchCapacity::searchCandidatesAroundTheDefault() {
  if (test::defaultModelInBuildTree().isEmpty()) QSKIP("the bundled model is not in the build tree");
  QTemporaryDir dir;
  const QString json = dir.filePath("search.json");
  const test::CliResult r = test::runWorkbench(QStringList{"bench", "--backend", "cpu", "--num-prompts", "3",
                                                           "--input-len", "8", "--output-len", "2", "--quiet", "--search",
                                                           "max_num_seqs,enable_prefix_caching", "--goodput",
                                                           "e2el:600000", "--json", json});
  QVERIFY2(r.exitCode == 0, r.err.constData());
  const QJsonArray knobs = readJson(json)["search"].toObject()["knobs"].toArray();
  QCOMPARE(knobs.size(), 2);
  // vLLM's default max_num_seqs on a CPU is 128: a quarter to four times it.
  QCOMPARE(knobs[0].toObject()["values"].toArray(), QJsonArray({"32", "64", "128", "256", "512"}));
  QCOMPARE(knobs[1].toObject()["values"].toArray(), QJsonArray({"false", "true"}));
  QCOMPARE(readJson(json)["rows"].toArray().size(), 10);
}

}  // namespace

QTEST_GUILESS_MAIN(TestBenchCapacity)
#include "tst_bench_capacity.moc"
