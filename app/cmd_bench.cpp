// `llm-workbench bench`: a synthetic serving benchmark in the manner of
// `vllm bench serve`, run against the in-process engine (see engine/metrics/bench_*), or
// with --endpoint against a running OpenAI-compatible server (see engine/remote/).
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/bench_search.h"
#include "app/cli/bench_options.h"
#include "app/cli/remote_options.h"
#include "app/commands.h"
#include "engine/bench/bench_runner.h"
#include "engine/bench/bench_setting.h"
#include "engine/bench/sweep.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/exec/sim/kv_pool.h"
#include "engine/metrics/export.h"
#include "engine/metrics/trace.h"
#include "engine/model/model.h"
#include "engine/model/tokenizer.h"
#include "engine/model/tokenizer_files.h"
#include "engine/pd_engine.h"
#include "engine/replicated_engine.h"
#include "remote/remote_bench.h"
#include "remote/remote_report.h"

namespace lwb::app {
namespace {

// One line, whatever the message holds.
std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// TTY: a redrawn bar; otherwise a line at every tenth of the run.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool enabled) : enabled_(enabled), tty_(isatty(fileno(stderr)) != 0) {}
  void operator()(int done, int total) {
    if (!enabled_ || total <= 0) return;
    if (tty_) {
      const int width = 40, filled = done * width / total;
      std::fprintf(stderr, "\r[%s%s] %d/%d requests", std::string(filled, '=').c_str(),
                   std::string(width - filled, ' ').c_str(), done, total);
      if (done == total) std::fputc('\n', stderr);
    } else if (done * 10 / total > lastTenth_) {
      lastTenth_ = done * 10 / total;
      std::fprintf(stderr, "bench: %d/%d requests finished\n", done, total);
    }
    std::fflush(stderr);
  }

 private:
  bool enabled_, tty_;
  int lastTenth_ = 0;
};

void writeOutputs(const BenchOptions& o, const BenchRun& run) {
  std::vector<RequestTimeline> timelines;
  for (const auto& r : run.report.requests) timelines.push_back(r.timeline);
  if (!o.jsonPath.empty()) writeTextFile(o.jsonPath, benchReportJson(run.report).dump(2) + "\n");
  if (!o.tracePath.empty()) writeTextFile(o.tracePath, chromeTrace(timelines, run.steps).dump() + "\n");
  if (!o.csvPrefix.empty()) {
    writeTextFile(o.csvPrefix + "_requests.csv", requestsCsv(timelines));
    writeTextFile(o.csvPrefix + "_steps.csv", stepsCsv(run.steps));
  }
}

void reportFailures(const BenchReport& report) {
  if (report.numFailed == 0) return;
  for (const auto& r : report.requests)
    if (!r.timeline.error.empty()) {
      std::fprintf(stderr, "bench: warning: %d request(s) failed, e.g. %s\n", report.numFailed,
                   oneLine(r.timeline.error).c_str());
      return;
    }
  std::fprintf(stderr, "bench: warning: %d request(s) failed\n", report.numFailed);
}

// The workload of `o` with its prompts cut to leave room for the output in max_model_len
// (a warning says how many); an output that does not fit is a usage error.
std::vector<SyntheticRequest> workloadWithin(const BenchOptions& o, const Model& model, int maxModelLen) {
  int numClamped = 0;
  std::vector<SyntheticRequest> workload;
  try {
    workload = workloadFor(benchSetting(o), model, maxModelLen, &numClamped);
  } catch (const Error& e) {
    throw UsageError(e.what());  // names --output-len
  }
  if (numClamped > 0)
    std::fprintf(stderr, "bench: warning: %d prompt(s) clamped to %d tokens (%s %d - output_len %d)\n", numClamped,
                 maxModelLen - o.workload.outputLen, std::string(knob::kMaxModelLen).c_str(), maxModelLen,
                 o.workload.outputLen);
  return workload;
}

// --pd P:D: the same workload on prefill and decode instances (engine/pd_engine.h); on
// the CPU backend one of each, P and D being their threads; on the simulator P and D
// instances.
BenchRun runOnPair(const std::shared_ptr<const Model>& model, const std::string& dir, const BenchOptions& o) {
  const PdConfig pd = makePdConfig(o.engine, o.pd->prefill, o.pd->decode);
  PdEngine engine(model, pd);
  Engine& d = engine.decodeEngine();
  const std::vector<SyntheticRequest> workload = workloadWithin(o, *model, d.maxModelLen());
  const DeviceInfo device = d.deviceInfo();
  if (!o.quiet)
    std::fprintf(stderr, "bench: %d requests on P/D %d:%d, %s (%s), KV blocks P %d, D %d, link %s\n",
                 o.workload.numPrompts, o.pd->prefill, o.pd->decode, device.backend.c_str(), device.name.c_str(),
                 engine.prefillEngine().numKvBlocks(), d.numKvBlocks(), pd.transfer.link.c_str());
  ProgressPrinter progress(!o.quiet);
  BenchRun run = runServingBenchmark(engine, workload, std::ref(progress), {o.maxConcurrency});
  run.report.config = benchConfigJson(o.workload, o.engine);
  run.report.config["model"] = dir;
  run.report.config["device"] = device.backend + ": " + device.name;
  run.report.config["pd"] = std::to_string(o.pd->prefill) + ":" + std::to_string(o.pd->decode);
  run.report.config[std::string(knob::kKvTransferConfig)] = pd.transfer.toJson();
  run.report.config["num_kv_blocks"] = d.numKvBlocks();
  run.report.config["num_kv_blocks_prefill"] = engine.prefillEngine().numKvBlocks();
  if (engine.simulated()) {
    run.report.simHardware = o.engine.executor.simHardware;
    run.report.simulatedDevice = device.name;
  }
  if (o.goodput) applyGoodput(run.report, *o.goodput);
  return run;
}

// --replicas N: the same workload on N colocated simulated devices.
BenchRun runOnReplicas(const std::shared_ptr<const Model>& model, const std::string& dir, const BenchOptions& o) {
  ReplicatedEngine engine(model, o.engine, o.replicas);
  Engine& first = engine.replica(0);
  const std::vector<SyntheticRequest> workload = workloadWithin(o, *model, first.maxModelLen());
  const DeviceInfo device = first.deviceInfo();
  if (!o.quiet)
    std::fprintf(stderr, "bench: %d requests on %d colocated replicas, %s (%s), %d KV blocks each\n",
                 o.workload.numPrompts, o.replicas, device.backend.c_str(), device.name.c_str(), first.numKvBlocks());
  ProgressPrinter progress(!o.quiet);
  BenchRun run = runServingBenchmark(engine, workload, std::ref(progress), {o.maxConcurrency});
  run.report.config = benchConfigJson(o.workload, o.engine);
  run.report.config["model"] = dir;
  run.report.config["device"] = device.backend + ": " + device.name;
  run.report.config["replicas"] = o.replicas;
  run.report.config["num_kv_blocks"] = first.numKvBlocks();
  run.report.simHardware = o.engine.executor.simHardware;
  run.report.simulatedDevice = device.name;
  if (o.goodput) applyGoodput(run.report, *o.goodput);
  return run;
}

// One run of `o` on a loaded model: a fresh engine with o's knobs.
BenchRun runOnModel(const std::shared_ptr<const Model>& model, const std::string& dir, const BenchOptions& o) {
  if (o.pd) return runOnPair(model, dir, o);
  if (o.replicas > 0) return runOnReplicas(model, dir, o);
  Engine engine(model, o.engine);
  const BenchSetting setting = benchSetting(o);
  const std::vector<SyntheticRequest> workload = workloadWithin(o, *model, engine.maxModelLen());
  const DeviceInfo device = engine.deviceInfo();
  if (!o.quiet) {
    std::fprintf(stderr, "bench: %d requests on %s (%s), %d KV blocks of %d tokens\n", o.workload.numPrompts,
                 device.backend.c_str(), device.name.c_str(), engine.numKvBlocks(), o.engine.blockSize);
    if (engine.simulated())
      std::fprintf(stderr, "%s\n",
                   sim::describeKvPool(engine.numKvBlocks(), o.engine.blockSize, engine.maxModelLen()).c_str());
  }
  ProgressPrinter progress(!o.quiet);
  return runBenchSetting(engine, workload, setting, dir, std::ref(progress));
}

std::string sweepTable(const BenchOptions& o, const Sweep& sweep) {
  std::string out = "================ Sweep of " + sweep.key + " ================\n";
  char line[200];
  std::snprintf(line, sizeof line, "%-14s %9s %9s %9s %8s %12s %11s\n", sweep.key.c_str(), "completed", "req/s",
                "goodput", "in SLO", "p99 TTFT ms", "p99 ITL ms");
  out += line;
  for (const SweepPoint& p : sweep.points) {
    char good[32] = "-", share[32] = "-";
    if (p.requestGoodput) {
      std::snprintf(good, sizeof good, "%.2f", *p.requestGoodput);
      std::snprintf(share, sizeof share, "%.1f %%", 100.0 * p.goodputFraction.value_or(0));
    }
    std::snprintf(line, sizeof line, "%-14s %9d %9.2f %9s %8s %12.1f %11.1f\n", p.value.c_str(), p.completed,
                  p.requestThroughput, good, share, p.ttft.p99, p.itl.p99);
    out += line;
  }
  if (!o.goodput) {
    if (!o.sweep->sweepsRequestRate()) return out;
    return out + "Saturation: give --goodput ttft:MS tpot:MS to find the largest rate served within SLOs.\n";
  }
  return out + sweepLesson(sweep) + "\n";
}

// Runs `runOne` for every swept value, prints each report and the sweep's table, writes
// --json as {"sweep": {"knob", "values"}, "rows": [...], "saturation_request_rate"}.
int runSweep(const BenchOptions& o, const std::function<BenchReport(const BenchOptions&)>& runOne) {
  Sweep sweep;
  sweep.key = o.sweep->key;
  for (const std::string& v : o.sweep->values) {
    if (!o.quiet) std::fprintf(stderr, "bench: sweep %s = %s\n", o.sweep->key.c_str(), v.c_str());
    const BenchReport report = runOne(sweepRunOptions(o, v));
    std::printf("== %s = %s ==\n%s", o.sweep->key.c_str(), v.c_str(), formatBenchSummary(report).c_str());
    std::fflush(stdout);
    reportFailures(report);
    addSweepRow(sweep, v, report, true);
  }
  std::fputs(sweepTable(o, sweep).c_str(), stdout);
  if (!o.jsonPath.empty()) writeTextFile(o.jsonPath, sweepJson(sweep).dump(2) + "\n");
  return 0;
}

int runParsed(const BenchOptions& o) {
  const std::string dir = o.modelDir.empty() ? defaultModelDir() : o.modelDir;
  if (!o.quiet) std::fprintf(stderr, "bench: loading %s\n", dir.c_str());
  // The sim backend runs no weights: config.json (and a tokenizer when there) is enough.
  const auto model = o.engine.executor.backend == "sim" ? loadModelConfigOnly(dir) : loadModel(dir);
  auto runOne = [&](const BenchOptions& run) { return runOnModel(model, dir, run).report; };
  if (o.sweep) return runSweep(o, runOne);
  if (!o.search.empty()) return runSearch(o, Engine(model, o.engine).effectiveConfig(), runOne);
  const BenchRun run = runOnModel(model, dir, o);
  std::fputs(formatBenchSummary(run.report).c_str(), stdout);
  std::fflush(stdout);
  reportFailures(run.report);
  writeOutputs(o, run);
  return 0;
}

// The served model's tokenizer when given (tokenizer.json or tokenizer.model, as
// loadModel reads them), else the bundled model's: prompts travel as ids.
std::unique_ptr<Tokenizer> remoteTokenizer(const std::string& dir) {
  const std::string folder = dir.empty() ? defaultModelDir() : dir;
  try {
    return loadTokenizerFiles(folder).tokenizer;
  } catch (const Error& e) {
    throw UsageError(std::string("--tokenizer: ") + e.what());
  }
}

std::string servedModel(const RemoteCliOptions& r, const remote::ClientOptions& client) {
  if (!r.servedModelName.empty()) return r.servedModelName;
  remote::OpenAiClient c(client);
  return c.listModels().front();
}

void writeRemoteOutputs(const BenchOptions& o, const remote::RemoteBenchRun& run) {
  std::vector<RequestTimeline> timelines;
  for (const auto& r : run.report.requests) timelines.push_back(r.timeline);
  if (!o.jsonPath.empty()) writeTextFile(o.jsonPath, remote::remoteBenchJson(run).dump(2) + "\n");
  if (!o.tracePath.empty()) writeTextFile(o.tracePath, chromeTrace(timelines, {}).dump() + "\n");
  if (!o.csvPrefix.empty()) writeTextFile(o.csvPrefix + "_requests.csv", requestsCsv(timelines));
}

int runRemote(std::vector<std::string> args) {
  const RemoteCliOptions r = takeRemoteArgs(args);
  const BenchOptions o = parseBenchArgs(args);
  if (o.help) {
    std::fputs((benchUsage() + "\n" + remoteBenchUsage()).c_str(), stdout);
    return 0;
  }
  if (!o.search.empty())
    throw UsageError("--search: engine knobs cannot be searched against --endpoint (the server's knobs are its own)");
  if (o.sweep && o.sweep->sweepsKnob())
    throw UsageError("--sweep " + o.sweep->key + ": an engine knob cannot be swept against --endpoint (the server's "
                     "knobs are its own); sweep request_rate or max_concurrency");
  remote::RemoteBenchOptions ro;
  ro.client = {r.endpoint, r.apiKey, 5.0, r.readTimeoutSeconds};
  ro.client.url = remote::parseEndpoint(r.endpoint).url();  // a bad URL is a usage error, before any I/O
  ro.maxConcurrency = r.maxConcurrency;
  ro.scrapeIntervalSeconds = r.metricsIntervalSeconds;
  const auto tokenizer = remoteTokenizer(r.tokenizerDir);
  ro.model = servedModel(r, ro.client);
  auto runOnce = [&](const BenchOptions& oi) {
    remote::RemoteBenchOptions roi = ro;
    if (oi.maxConcurrency > 0) roi.maxConcurrency = oi.maxConcurrency;
    const auto workload = makeWorkload(oi.workload, tokenizer->ordinaryIds(), tokenizer->bosId());
    if (!oi.quiet)
      std::fprintf(stderr, "bench: %d requests to %s (model %s)\n", oi.workload.numPrompts, roi.client.url.c_str(),
                   roi.model.c_str());
    ProgressPrinter progress(!oi.quiet);
    remote::RemoteBenchRun run = remote::runRemoteBenchmark(roi, workload, std::ref(progress));
    run.report.config = remote::remoteBenchConfig(oi.workload, roi, run);
    if (oi.goodput) applyGoodput(run.report, *oi.goodput);
    return run;
  };
  if (o.sweep) return runSweep(o, [&](const BenchOptions& oi) { return runOnce(oi).report; });
  const remote::RemoteBenchRun run = runOnce(o);
  std::fputs(remote::formatRemoteSummary(run).c_str(), stdout);
  std::fflush(stdout);
  reportFailures(run.report);
  writeRemoteOutputs(o, run);
  return 0;
}

}  // namespace

int runBench(int argc, char** argv) {
  BenchOptions options;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (hasEndpointFlag(args)) return runRemote(args);
    options = parseBenchArgs(args);
    if (options.help) {
      std::fputs((benchUsage() + "\n" + remoteBenchUsage()).c_str(), stdout);
      return 0;
    }
    return runParsed(options);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "llm-workbench bench: %s\n", oneLine(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llm-workbench bench: %s\n", oneLine(e.what()).c_str());
    return 1;
  }
}

}  // namespace lwb::app
