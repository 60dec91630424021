// The simulator from the command line: `bench --backend sim` on a config-only folder
// writes a real run's JSON keys plus "simulated" and "sim_hardware", the same JSON for the
// same seed, and prints the KV pool as vLLM logs it; `bench --help` lists every preset;
// `calibrate`, `generate` and `serve` refuse what they cannot do, with exit code 2.
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "common/cli_runner.h"

using namespace lwb;

namespace {

const QString kShape = QStringLiteral(LWB_SOURCE_DIR "/resources/sim-models/llama-3-70b");

QJsonObject readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace

class TestSimCli : public QObject {
  Q_OBJECT
 private slots:
  void benchOnSimulatedHardware() {
    QTemporaryDir dir;
    const QStringList args = {"bench", "--backend", "sim", "--sim-hardware", "h100-sxm", "--tensor-parallel-size", "4",
                              "--model", kShape, "--num-prompts", "200", "--request-rate", "20", "--input-len", "1000",
                              "--output-len", "100", "--seed", "5", "--json"};
    const test::CliResult a = test::runWorkbench(args + QStringList{dir.filePath("a.json")});
    QVERIFY2(a.exitCode == 0, a.err.constData());
    QVERIFY2(a.err.contains("# GPU blocks: ") && a.err.contains("Maximum concurrency for 8192 tokens per request"),
             a.err.constData());
    QVERIFY(a.out.contains("SIMULATED on NVIDIA H100 SXM5 80GB x4 (simulated)"));
    const QJsonObject j = readJson(dir.filePath("a.json"));
    QCOMPARE(j.value("simulated").toBool(), true);
    QCOMPARE(j.value("sim_hardware").toString(), QString("h100-sxm"));
    QCOMPARE(j.value("completed").toInt(), 200);
    QCOMPARE(j.value("total_output_tokens").toInt(), 200 * 100);  // every request to its length
    for (const char* key : {"request_throughput", "output_throughput", "median_ttft_ms", "p99_itl_ms", "duration",
                            "num_preemptions", "max_kv_cache_usage", "prefix_cache_hit_rate", "requests"})
      QVERIFY2(j.contains(key), key);
    QVERIFY(j.value("duration").toDouble() > 5);  // 200 arrivals at 20 req/s, on the virtual clock
    // Same seed: the same file, to the byte.
    const test::CliResult b = test::runWorkbench(args + QStringList{dir.filePath("b.json")});
    QVERIFY(b.exitCode == 0);
    QFile fa(dir.filePath("a.json")), fb(dir.filePath("b.json"));
    QVERIFY(fa.open(QIODevice::ReadOnly) && fb.open(QIODevice::ReadOnly));
    QVERIFY(fa.readAll() == fb.readAll());
  }

  void helpListsEveryPreset() {
    const test::CliResult help = test::runWorkbench({"bench", "--help"}, 60000);
    QVERIFY(help.exitCode == 0);
    for (const char* preset : {"h100-sxm", "h200", "a100-80gb", "l40s", "l4", "rtx-4090", "epyc-zen4-2t"})
      QVERIFY2(help.out.contains(preset), preset);
    const test::CliResult calibrate = test::runWorkbench({"calibrate", "--help"}, 60000);
    QVERIFY(calibrate.exitCode == 0 && calibrate.out.contains("--out FILE"));
  }

  void refusalsNameTheProblem() {
    struct Case {
      QStringList args;
      const char* says;
    } cases[] = {
        {{"calibrate"}, "--out FILE is required"},
        {{"calibrate", "--out", "/nonexistent-folder/p.json"}, "is not a writable folder"},
        {{"calibrate", "--backend", "sim", "--out", "/tmp/x.json"}, "calibrate times a real backend"},
        {{"generate", "--backend", "sim", "--prompt", "hi"}, "generate needs text"},
        {{"serve", "--backend", "sim"}, "the API serves a real engine"},
        {{"bench", "--backend", "sim", "--sim-hardware", "b300", "--model", kShape, "--num-prompts", "1"},
         "sim_hardware b300: not a preset"},
        {{"bench", "--backend", "sim", "--sim-hardware", "l4", "--model", kShape, "--num-prompts", "1"},
         "does not fit"},
    };
    for (const Case& c : cases) {
      const test::CliResult r = test::runWorkbench(c.args, 60000);
      QVERIFY2(r.exitCode == 1 || r.exitCode == 2, qPrintable(c.args.join(' ')));
      QVERIFY2(r.err.contains(c.says), qPrintable(c.args.join(' ') + ": " + QString::fromUtf8(r.err)));
    }
  }
};

QTEST_APPLESS_MAIN(TestSimCli)
#include "tst_sim_cli.moc"
