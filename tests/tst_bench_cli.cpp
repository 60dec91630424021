// `llm-workbench bench`: argument parsing in-process (no model needed), then the real
// command on the default model through QProcess (skipped while the model or the
// executable is absent).
#include <QtTest>

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

#include "app/cli/bench_options.h"
#include "common/cli_runner.h"
#include "engine/common/json.h"

using namespace lwb;
using namespace lwb::app;

namespace {

BenchOptions parse(std::vector<std::string> args) { return parseBenchArgs(args); }

QString usageError(std::vector<std::string> args) {
  try {
    parseBenchArgs(args);
  } catch (const UsageError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

// Why the real command cannot run here, or "" when it can.
QString whyNotRunnable() {
  if (!QFileInfo::exists(test::workbenchExecutable())) return "llm-workbench is not built in this build tree";
  if (test::defaultModelInBuildTree().isEmpty()) return "the default model (austen-chat-11m) is not in the build tree yet";
  return {};
}

}  // namespace

class TestBenchCli : public QObject {
  Q_OBJECT

 private slots:
  void parsesWorkloadAndKnobs() {
    const BenchOptions o = parse({"--num-prompts", "8", "--request-rate", "inf", "--input-len=32", "--output-len",
                                  "8", "--ignore-eos", "--shared-prefix-len", "64", "--num-prefix-groups", "2",
                                  "--max-num-batched-tokens", "128", "--max-num-seqs", "4",
                                  "--no-enable-chunked-prefill", "--no-enable-prefix-caching", "--block-size", "32",
                                  "--scheduling-policy", "priority", "--backend", "cpu", "--threads", "2",
                                  "--json", "out.json", "--trace", "t.json", "--csv", "run"});
    QCOMPARE(o.workload.numPrompts, 8);
    QVERIFY(std::isinf(o.workload.requestRate));
    QCOMPARE(o.workload.inputLen, 32);
    QCOMPARE(o.workload.outputLen, 8);
    QVERIFY(o.workload.ignoreEos);
    QCOMPARE(o.workload.sharedPrefixLen, 64);
    QCOMPARE(o.workload.numPrefixGroups, 2);
    QCOMPARE(o.engine.maxNumBatchedTokens, 128);
    QCOMPARE(o.engine.maxNumSeqs, 4);
    QVERIFY(!o.engine.enableChunkedPrefill);
    QVERIFY(!o.engine.enablePrefixCaching);
    QCOMPARE(o.engine.blockSize, 32);
    QVERIFY(o.engine.schedulingPolicy == SchedulingPolicy::Priority);
    QCOMPARE(o.engine.executor.backend, std::string("cpu"));
    QCOMPARE(o.engine.executor.numThreads, 2);
    QCOMPARE(o.jsonPath, std::string("out.json"));
    QCOMPARE(o.tracePath, std::string("t.json"));
    QCOMPARE(o.csvPrefix, std::string("run"));
    QVERIFY(!o.help);
  }

  void lastRepeatedFlagWins() {
    const BenchOptions o = parse({"--num-prompts", "3", "--num-prompts", "5", "--enable-prefix-caching",
                                  "--no-enable-prefix-caching", "--enable-prefix-caching"});
    QCOMPARE(o.workload.numPrompts, 5);
    QVERIFY(o.engine.enablePrefixCaching);
    QVERIFY(parse({"--help"}).help);
    QVERIFY(parse({"--num-prompts", "0", "--help"}).help);  // help wins over a bad value
    QCOMPARE(parse({"--num_prompts", "7"}).workload.numPrompts, 7);
  }

  void badArgumentsNameTheFlag() {
    QVERIFY(usageError({"--bogus"}).contains("--bogus"));
    QVERIFY(usageError({"--num-prompts"}).contains("--num-prompts"));
    QVERIFY(usageError({"--num-prompts", "0"}).contains("--num-prompts 0"));
    QVERIFY(usageError({"--input-len", "ten"}).contains("--input-len"));
    QVERIFY(usageError({"--max-num-seqs", "-1"}).contains("--max-num-seqs -1"));
    QVERIFY(usageError({"--max-num-seqs", "-1"}).contains("0..65536"));  // 0 = vLLM's default for the device
    QVERIFY(usageError({"--block-size", "24"}).contains("--block-size 24"));
    QVERIFY(usageError({"--backend", "tpu"}).contains("--backend"));
    QVERIFY(usageError({"--scheduling-policy", "lifo"}).contains("fcfs, priority"));
    QVERIFY(usageError({"--request-rate", "-1"}).contains("--request-rate"));
    QVERIFY(usageError({"--ignore-eos=yes"}).contains("--ignore-eos"));
    QVERIFY(usageError({"--range-ratio", "1.5"}).contains("--range-ratio 1.5"));
    QVERIFY(usageError({"--pd", "2x"}).contains("--pd 2x: expected P:D"));
    QVERIFY(usageError({"--pd", "0:1"}).contains("--pd 0:1"));
    QCOMPARE(parse({"--pd", "2:3", "--backend", "sim"}).pd->prefill, 2);  // simulated instances
    QVERIFY(usageError({"--pd", "65:1", "--backend", "sim"}).contains("at most 64"));
    QCOMPARE(parse({"--replicas", "2", "--backend", "sim"}).replicas, 2);
    QVERIFY(usageError({"--replicas", "2", "--backend", "cpu"}).contains("--replicas 2"));
    QVERIFY(usageError({"--replicas", "2", "--backend", "sim", "--pd", "1:1"}).contains("--replicas and --pd"));
    QCOMPARE(parse({"--pd", "1:3"}).pd->decode, 3);
    QVERIFY(usageError({"--kv-transfer-config", R"({"kv_connector": "PdInProcessConnector"})"}).contains("--pd"));
  }

  // --pd 1:1 on the CPU: the same greedy tokens as the colocated run, request by request
  // in workload order, each with the bytes of its prompt's full blocks.
  void pdRunMatchesTheColocatedRun() {
    if (const QString why = whyNotRunnable(); !why.isEmpty()) QSKIP(qPrintable(why));
    QTemporaryDir dir;
    auto run = [&](const QStringList& extra, const QString& name) {
      QStringList args = {"bench", "--model", test::defaultModelInBuildTree(), "--num-prompts", "6", "--request-rate",
                          "inf", "--input-len", "40", "--output-len", "6", "--ignore-eos", "--seed", "5",
                          "--backend", "cpu", "--json", dir.filePath(name), "--quiet"};
      const test::CliResult r = test::runWorkbench(args + extra);
      QFile f(dir.filePath(name));
      if (r.exitCode != 0 || !f.open(QIODevice::ReadOnly)) qWarning("%s", r.err.constData());
      return lwb::parseJson(f.readAll().toStdString());
    };
    const auto colocated = run({"--threads", "2"}, "colocated.json");
    const auto pd = run({"--pd", "1:1"}, "pd.json");
    QCOMPARE(pd["completed"].get<int>(), 6);
    QCOMPARE(pd["config"]["pd"].get<std::string>(), std::string("1:1"));
    for (size_t i = 0; i < 6; ++i) {
      const auto& a = colocated["requests"][i];
      const auto& b = pd["requests"][i];
      QCOMPARE(b["prompt_len"], a["prompt_len"]);
      QCOMPARE(b["output_token_ids"], a["output_token_ids"]);
      QCOMPARE(a["kv_transfer_bytes"].get<int64_t>(), int64_t(0));
      QVERIFY(b["kv_transfer_bytes"].get<int64_t>() > 0);
      QVERIFY(b["kv_transfer_ms"].is_number());
    }
  }

  void configJsonUsesVllmNames() {
    const BenchOptions o = parse({"--max-num-batched-tokens", "256"});
    const auto j = benchConfigJson(o.workload, o.engine);
    QCOMPARE(j["max_num_batched_tokens"].get<int>(), 256);
    QCOMPARE(j["request_rate"].get<std::string>(), std::string("inf"));
    for (const char* key : {"max_num_seqs", "enable_chunked_prefill", "enable_prefix_caching", "block_size",
                            "scheduling_policy", "num_prompts", "input_len", "output_len"})
      QVERIFY2(j.contains(key), key);
  }

  void reserveFullIslSwitch() {
    QVERIFY(parse({}).engine.schedulerReserveFullIsl);  // vLLM's default
    const BenchOptions o = parse({"--no-scheduler-reserve-full-isl"});
    QVERIFY(!o.engine.schedulerReserveFullIsl);
    QCOMPARE(benchConfigJson(o.workload, o.engine)["scheduler_reserve_full_isl"].get<bool>(), false);
    QVERIFY(parse({"--no-scheduler-reserve-full-isl", "--scheduler-reserve-full-isl"}).engine.schedulerReserveFullIsl);
  }

  // vLLM refuses chunked prefill off with a budget below max_model_len: the knobs are
  // an error (exit non-zero, both names in the message), not a reason to reject prompts.
  void chunkedPrefillOffWithASmallBudgetIsRefused() {
    if (const QString why = whyNotRunnable(); !why.isEmpty()) QSKIP(qPrintable(why));
    const test::CliResult r = test::runWorkbench(
        {"bench", "--model", test::defaultModelInBuildTree(), "--num-prompts", "1", "--input-len", "8",
         "--output-len", "2", "--no-enable-chunked-prefill", "--max-num-batched-tokens", "256", "--backend", "cpu"},
        120000);
    QVERIFY2(r.exitCode != 0 && !r.crashed, r.out.constData());
    QVERIFY2(r.err.contains("max_num_batched_tokens (256)") && r.err.contains("max_model_len (1024)"),
             r.err.constData());
  }

  void badFlagsExitTwo() {
    if (!QFileInfo::exists(test::workbenchExecutable())) QSKIP("llm-workbench is not built in this build tree");
    for (const QStringList& args : {QStringList{"bench", "--num-prompts", "-3"}, QStringList{"bench", "--frobnicate"},
                                    QStringList{"bench", "--block-size", "3"}}) {
      const test::CliResult r = test::runWorkbench(args, 60000);
      QCOMPARE(r.exitCode, 2);
      const QByteArray err = r.err.trimmed();
      QVERIFY2(!err.contains('\n'), err.constData());
      QVERIFY2(err.contains(args[1].toUtf8()), err.constData());
    }
    const test::CliResult help = test::runWorkbench({"bench", "--help"}, 60000);
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--request-rate"));
  }

  void smallRunWritesJson() {
    if (const QString why = whyNotRunnable(); !why.isEmpty()) QSKIP(qPrintable(why));
    QTemporaryDir dir;
    const QString json = dir.filePath("bench.json"), trace = dir.filePath("trace.json");
    const test::CliResult r = test::runWorkbench(
        {"bench", "--model", test::defaultModelInBuildTree(), "--num-prompts", "8", "--request-rate", "inf",
         "--input-len", "32", "--output-len", "8", "--ignore-eos", "--seed", "3", "--backend", "cpu", "--json", json,
         "--trace", trace, "--csv", dir.filePath("run")});
    QVERIFY2(r.exitCode == 0 && !r.crashed, r.err.constData());
    QVERIFY(r.out.contains("Serving Benchmark Result"));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto j = lwb::parseJson(f.readAll().toStdString());
    QCOMPARE(j["completed"].get<int>(), 8);
    QCOMPARE(j["total_output_tokens"].get<int>(), 64);
    for (const char* key : {"duration", "request_throughput", "output_throughput", "total_token_throughput",
                            "mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "mean_itl_ms",
                            "p99_itl_ms", "mean_e2el_ms", "prefix_cache_hit_rate", "num_preemptions",
                            "max_kv_cache_usage", "config"})
      QVERIFY2(j.contains(key), key);
    QCOMPARE(j["requests"].size(), size_t(8));
    for (const auto& req : j["requests"]) {
      QCOMPARE(req["output_len"].get<int>(), 8);
      QCOMPARE(req["output_token_ids"].size(), size_t(8));
      QCOMPARE(req["prompt_len"].get<int>(), 33);  // BOS + 32
      QVERIFY(req["ttft_ms"].get<double>() > 0);
      QVERIFY(req["e2el_ms"].get<double>() >= req["ttft_ms"].get<double>());
    }
    QVERIFY(j["max_kv_cache_usage"].get<double>() > 0);
    QVERIFY(QFileInfo(trace).size() > 0);
    QVERIFY(QFileInfo(dir.filePath("run_requests.csv")).size() > 0);
    QVERIFY(QFileInfo(dir.filePath("run_steps.csv")).size() > 0);
  }
};

QTEST_GUILESS_MAIN(TestBenchCli)
#include "tst_bench_cli.moc"
