// The guided experiments: each lesson's finding is computed from its runs (synthetic run
// results here: the numbers and the direction in the sentence, and the case where the
// expected effect did not happen, which the finding must say instead of the textbook);
// every lesson runs to completion on the real engine at a small scale; `lesson --list`
// and `lesson NAME --json` from the command line.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "common/cli_runner.h"
#include "common/random_model.h"
#include "engine/bench/goodput.h"
#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/model/model.h"
#include "lessons/lessons.h"

using namespace lwb;

namespace {

LessonRun run(const std::string& label) {
  LessonRun r;
  r.setting.label = label;
  return r;
}

QString findingOf(const char* lesson, const std::vector<LessonRun>& runs) {
  return QString::fromStdString(findingText(findLesson(lesson), runs));
}

std::string seqs(int n) { return std::string(knob::kMaxNumSeqs) + " " + std::to_string(n); }

// The speculative-decoding lesson's six runs: (off, on) at max_num_seqs 1, 4, 16, with
// one request's TPOT, each load's output throughput and the drafts' verdicts.
std::vector<LessonRun> specRuns(double tpotOff, double tpotOn, const double (&tokPerS)[6]) {
  std::vector<LessonRun> runs;
  for (int i = 0; i < 6; ++i) {
    const int n = i < 2 ? 1 : i < 4 ? 4 : 16;
    LessonRun r = run(seqs(n) + (i % 2 ? ", on" : ", off"));
    r.setting.knobs.maxNumSeqs = n;
    r.report.outputThroughput = tokPerS[i];
    r.report.tpotMs.median = i == 0 ? tpotOff : i == 1 ? tpotOn : 5;
    if (i % 2)
      for (int d = 0; d < 10; ++d) r.report.specDecode.observe(4, d < 5 ? 4 : 2);  // 30 of 40 accepted
    runs.push_back(r);
  }
  return runs;
}

StepRecord step(int prefill, int decode, double ms) {
  StepRecord s;
  s.numPrefillTokens = prefill;
  s.numDecodeTokens = decode;
  s.duration = ms / 1000;
  return s;
}

}  // namespace

class TestLessons : public QObject {
  Q_OBJECT
 private slots:
  void prefillDecodeFindingFromSteps() {
    LessonRun r = run("mixed load");
    for (int i = 0; i < 5; ++i) r.steps.push_back(step(0, 8, 10));     // 1250 us per token
    for (int i = 0; i < 3; ++i) r.steps.push_back(step(512, 0, 50));   // 97.7 us per token
    QString f = findingOf("prefill-decode", {r});
    QVERIFY2(f.contains("A decode step of 8 tokens took 10 ms (1250 us per token)") && f.contains("97.7 us per token") &&
                 f.contains("12.8x cheaper") && f.contains("Batch composition"),
             qPrintable(f));
    r.steps.clear();
    for (int i = 0; i < 5; ++i) r.steps.push_back(step(0, 8, 10));
    for (int i = 0; i < 3; ++i) r.steps.push_back(step(512, 0, 600));  // no cheaper per token
    f = findingOf("prefill-decode", {r});
    QVERIFY2(f.contains("did not appear") && !f.contains("cheaper:"), qPrintable(f));
  }

  void kvCacheFinding() {
    LessonRun big = run("as configured"), small = run("small");
    big.numKvBlocks = 1000, small.numKvBlocks = 75;
    big.report.ttftMs.median = 100, small.report.ttftMs.median = 800;
    big.report.outputThroughput = 500, small.report.outputThroughput = 300;
    small.report.numPreemptions = 18;
    QString f = findingOf("kv-cache", {big, small});
    QVERIFY2(f.contains("With 75 KV blocks (1200 tokens) instead of 1000") && f.contains("preempted 18 times (0") &&
                 f.contains("rose from 100 ms to 800 ms (8.00x)") && f.contains("fell from 500 tok/s to 300 tok/s") &&
                 f.contains("KV block map"),
             qPrintable(f));
    small.report.numPreemptions = 0, small.report.ttftMs.median = 102, small.report.outputThroughput = 498;
    f = findingOf("kv-cache", {big, small});
    QVERIFY2(f.contains("stayed at about 100 ms") && f.contains("did not happen"), qPrintable(f));
  }

  void batchingFinding() {
    LessonRun one = run(seqs(1)), mid = run(seqs(4)), many = run(seqs(16));
    one.report.outputThroughput = 100, many.report.outputThroughput = 800;
    one.report.tpotMs.median = 10, many.report.tpotMs.median = 10.2;
    QString f = findingOf("batching", {one, mid, many});
    QVERIFY2(f.contains("rose from 100 tok/s to 800 tok/s (8.00x)") && f.contains("stayed at about 100 tok/s") &&
                 !f.contains("did not"),
             qPrintable(f));
    many.report.outputThroughput = 105, many.report.tpotMs.median = 40;
    f = findingOf("batching", {one, mid, many});
    QVERIFY2(f.contains("did not happen") && f.contains("fell from 100 tok/s to 25 tok/s"), qPrintable(f));
  }

  void chunkedPrefillFinding() {
    LessonRun big = run("budget 2048"), small = run("budget 128");
    big.report.itlMs.p99 = 50, small.report.itlMs.p99 = 10;
    big.report.ttftMs.median = 20, small.report.ttftMs.median = 60;
    QString f = findingOf("chunked-prefill", {big, small});
    QVERIFY2(f.contains("p99 inter-token latency fell from 50 ms to 10 ms (0.200x)") &&
                 f.contains("median TTFT rose from 20 ms to 60 ms (3.00x)") && f.contains("dial"),
             qPrintable(f));
    small.report.itlMs.p99 = 55;
    f = findingOf("chunked-prefill", {big, small});
    QVERIFY2(f.contains("did not appear") && !f.contains("dial"), qPrintable(f));
  }

  void prefixCachingFindingNamesTheMisses() {
    LessonRun on = run("on"), off = run("off");
    on.report.prefixCacheHitRate = 0.8;
    on.report.ttftMs.median = 10, off.report.ttftMs.median = 40;
    on.report.prefixMissTokens[size_t(PrefixMissReason::Cold)] = 30;
    on.report.prefixMissTokens[size_t(PrefixMissReason::PartialBlock)] = 5;
    QString f = findingOf("prefix-caching", {on, off});
    QVERIFY2(f.contains("80 % of the prompt tokens came from the cache") && f.contains("(4.00x)") &&
                 f.contains("30 cold, 5 partial_block") && !f.contains("did not"),
             qPrintable(f));
    on.report.prefixCacheHitRate = 0, on.report.ttftMs.median = 41;
    on.report.prefixMissTokens[size_t(PrefixMissReason::Diverged)] = 900;
    f = findingOf("prefix-caching", {on, off});
    QVERIFY2(f.contains("did not happen") && f.contains("900 diverged"), qPrintable(f));
  }

  void goodputFindingFindsThePeak() {
    std::vector<LessonRun> runs = {run("request_rate 2"), run("request_rate 8"), run("request_rate 32")};
    const double goodput[] = {2, 7, 5};
    for (size_t i = 0; i < 3; ++i) {
      runs[i].report.goodput = parseGoodput("ttft:250 tpot:30");
      runs[i].report.requestGoodput = goodput[i];
    }
    QString f = findingOf("goodput", runs);
    QVERIFY2(f.contains("ttft:250 tpot:30") && f.contains("7 at request_rate 8") && f.contains("goodput peaks"),
             qPrintable(f));
    runs[2].report.requestGoodput = 9;
    f = findingOf("goodput", runs);
    QVERIFY2(f.contains("9 at request_rate 32") && f.contains("lies beyond"), qPrintable(f));
  }

  void speculativeDecodingFindsWhereTheGainEnds() {
    // 10 ms -> 4 ms per token at one request; throughput 1.50x, 1.10x, then 0.800x.
    const double paysThenCosts[6] = {100, 150, 400, 440, 1000, 800};
    QString f = findingOf("speculative-decoding", specRuns(10, 4, paysThenCosts));
    QVERIFY2(f.contains("75 % of the draft tokens were accepted (mean acceptance length 4.00") &&
                 f.contains("decode speed rose from 100 tok/s to 250 tok/s (2.50x)") &&
                 f.contains("1.50x at " + QString::fromStdString(seqs(1)) + ", 1.10x at " +
                            QString::fromStdString(seqs(4)) + ", 0.800x at " + QString::fromStdString(seqs(16))) &&
                 f.contains("The gain was gone at " + QString::fromStdString(seqs(16))),
             qPrintable(f));
    const double keepsPaying[6] = {100, 150, 400, 440, 1000, 1100};
    f = findingOf("speculative-decoding", specRuns(10, 4, keepsPaying));
    QVERIFY2(f.contains("did not vanish up to " + QString::fromStdString(seqs(16))) && !f.contains("was gone"),
             qPrintable(f));
    // Drafts that do not pay even for one request: the finding says the gain did not appear.
    const double neverPays[6] = {100, 90, 400, 300, 1000, 700};
    f = findingOf("speculative-decoding", specRuns(10, 11, neverPays));
    QVERIFY2(f.contains("decode speed fell from 100 tok/s to 90.9 tok/s") && f.contains("did not appear") &&
                 !f.contains("was gone"),
             qPrintable(f));
  }

  void pdFindingFromTheNumbers() {
    LessonRun colocated = run("colocated"), pd = run("P/D 1:1");
    colocated.report.itlMs.p99 = 200, pd.report.itlMs.p99 = 25;
    colocated.report.ttftMs.median = 1000, pd.report.ttftMs.median = 1500;
    colocated.report.totalTokenThroughput = 1600, pd.report.totalTokenThroughput = 1400;
    BenchRequestRecord q;
    q.timeline.kvTransferTime = 0.012;
    pd.report.requests = {q, q, q};
    QString f = findingOf("pd-disaggregation", {colocated, pd});
    QVERIFY2(f.startsWith("P/D 1:1 against colocated: p99 ITL fell from 200 ms to 25 ms (0.125x)") &&
                 f.contains("median TTFT (the KV transfer included) rose from 1000 ms to 1500 ms (1.50x)") &&
                 f.contains("total throughput fell from 1600 tok/s to 1400 tok/s") &&
                 f.contains("The median KV transfer took 12 ms") && f.contains("price was paid in TTFT") &&
                 !f.contains("simulator"),
             qPrintable(f));
    // ITL no better: the finding says the split did not pay off, whatever TTFT did.
    pd.report.itlMs.p99 = 190, pd.report.ttftMs.median = 900;
    pd.report.simHardware = "h100-sxm";
    f = findingOf("pd-disaggregation", {colocated, pd});
    QVERIFY2(f.contains("P/D did not lower p99 ITL") && f.contains("fell from 1000 ms to 900 ms") &&
                 f.contains("twice the hardware") && !f.contains("are gone"),
             qPrintable(f));
  }

  // English for the command line, a translator's text for the window: the numbers stay.
  void phrasesRenderThroughATranslator() {
    const Phrase p = Phrase::marked("From %1 to %2: %3.",
                                {std::string("a %2"), std::string("b"), Phrase::marked("rose by %1", {std::string("5")})});
    QCOMPARE(QString::fromStdString(english(p)), QString("From a %2 to b: rose by 5."));
    const std::string ja = render(p, [](const char* t) {
      return std::string(t) == "From %1 to %2: %3." ? "%1 から %2 へ: %3。" : std::string("%1 増加");
    });
    QCOMPARE(QString::fromStdString(ja), QString::fromUtf8("a %2 から b へ: 5 増加。"));
    QVERIFY_THROWS_EXCEPTION(Error, english(Phrase::marked("needs %2", {std::string("x")})));
    std::vector<const char*> templates;
    collectTemplates(p, &templates);
    QCOMPARE(int(templates.size()), 2);
  }

  void lessonsInTheIssuesOrder() {
    QStringList names;
    for (const Lesson& l : lessons()) names << QString::fromStdString(l.name);
    QCOMPARE(names, QStringList({"prefill-decode", "kv-cache", "batching", "chunked-prefill", "prefix-caching",
                                 "speculative-decoding", "pd-disaggregation", "goodput"}));
  }

  // The simulator does not simulate speculation: the lesson says so instead of running.
  void speculativeDecodingRefusesTheSimulator() {
    EngineConfig sim;
    sim.executor.backend = "sim";
    const Lesson& l = findLesson("speculative-decoding");
    QVERIFY(english(unsupportedReason(l, sim)).find("does not simulate speculative decoding") != std::string::npos);
    QVERIFY(unsupportedReason(l, EngineConfig{}).empty());
    const test::CliResult r = test::runWorkbench(
        {"lesson", "speculative-decoding", "--backend", "sim", "--model", LWB_SOURCE_DIR "/resources/sim-models/llama-3-8b",
         "--quiet"},
        60000);
    QVERIFY2(r.exitCode != 0 && r.err.contains("lesson 'speculative-decoding'") &&
                 r.err.contains("does not simulate speculative decoding"),
             r.err.constData());
  }

  // Every lesson, small, on the real CPU engine: its runs complete and a finding follows.
  void everyLessonRunsOnTheRealEngine() {
    QTemporaryDir dir;
    std::shared_ptr<const Model> model;
    try {
      model = loadModel(defaultModelDir());
    } catch (const std::exception&) {
      RandomModelSpec spec;
      spec.maxPositionEmbeddings = 1024;
      model = loadModel(writeRandomLlamaModel(dir.filePath("m").toStdString(), spec));
    }
    EngineConfig base;
    base.executor.backend = "cpu";
    base.executor.numThreads = 1;
    for (const Lesson& l : lessons()) {
      const std::vector<LessonRun> runs = runLesson(l, model, base, 0.05);
      QCOMPARE(runs.size(), l.settings(base, 0.05).size());
      for (const LessonRun& r : runs) QVERIFY2(r.report.completed == r.setting.workload.numPrompts + r.setting.workload.numBackgroundRequests, l.name.c_str());
      QVERIFY2(!findingText(l, runs).empty(), l.name.c_str());
    }
  }

  void commandLine() {
    const test::CliResult list = test::runWorkbench({"lesson", "--list"}, 60000);
    QCOMPARE(list.exitCode, 0);
    const QStringList lines = QString::fromUtf8(list.out).trimmed().split('\n');
    QCOMPARE(lines.size(), int(lessons().size()));
    for (size_t i = 0; i < lessons().size(); ++i)
      QVERIFY2(lines[int(i)].startsWith(QString::fromStdString(lessons()[i].name) + " "), qPrintable(lines[int(i)]));
    const test::CliResult bad = test::runWorkbench({"lesson", "nope"}, 60000);
    QVERIFY(bad.exitCode == 2 && bad.err.contains("lesson 'nope'") && bad.err.contains("kv-cache"));
    QTemporaryDir dir;
    const QString json = dir.filePath("l.json");
    const test::CliResult r = test::runWorkbench(
        {"lesson", "kv-cache", "--backend", "sim", "--sim-hardware", "h100-sxm", "--model",
         LWB_SOURCE_DIR "/resources/sim-models/llama-3-8b", "--json", json, "--quiet"},
        120000);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("SIMULATED") && r.out.contains("preempted"));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(j.value("lesson").toString(), QString("kv-cache"));
    QVERIFY(j.value("finding").toString().contains("preempted"));
    const QJsonArray runs = j.value("runs").toArray();
    QCOMPARE(runs.size(), 2);
    QVERIFY(runs[1].toObject().value("label").toString().contains(QString::fromStdString(std::string(knob::kNumGpuBlocksOverride))));
    QVERIFY(runs[0].toObject().value("simulated").toBool());
  }
};

QTEST_APPLESS_MAIN(TestLessons)
#include "tst_lessons.moc"
