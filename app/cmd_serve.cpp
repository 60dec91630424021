// `llm-workbench serve`: the OpenAI-compatible HTTP API and /metrics, headless, in the
// manner of `vllm serve`. The engine knobs are the knob table's flags, as for bench.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "app/cli/bench_options.h"
#include "app/commands.h"
#include "engine/config/knobs.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "engine/pd_engine.h"
#include "server/api_server.h"
#include "server/kv_event_publisher.h"
#include "server/server_metrics.h"

namespace lwb::app {
namespace {

constexpr int kLogIntervalSeconds = 10;  // vLLM's stat-logging interval

struct ServeOptions {
  server::ServerOptions server;
  std::string modelDir;  // "" = the bundled model
  EngineConfig engine;
  server::KvEventsConfig kvEvents;  // --kv-events-config (vLLM's)
  std::optional<PdSplit> pd;        // --pd P:D: an in-process prefill/decode pair behind the API
  bool help = false;
};

ArgParser makeServeParser() {
  ArgParser p("serve", "llm-workbench serve [options]",
              "Serves the model over an OpenAI-compatible HTTP API (/v1/completions,\n"
              "/v1/chat/completions, /v1/models, /tokenize, /detokenize, /health, /version) and\n"
              "Prometheus /metrics with vLLM's metric names. Ctrl-C or SIGTERM aborts in-flight\n"
              "requests and exits.");
  p.option("model", "DIR", "model folder or .gguf file (default: the bundled austen-chat-11m)");
  p.option("host", "ADDR", "address to bind (default 127.0.0.1: this machine only)");
  p.option("port", "N", "TCP port (default 8000; 0 = any free port)");
  p.option("served-model-name", "NAME", "the model id clients use (default: the folder's name)");
  p.option("api-key", "KEY", "require 'Authorization: Bearer KEY' on /v1 routes");
  p.option("kv-events-config", "JSON",
           "publish KV-cache events as vLLM does, e.g. '{\"enable_kv_cache_events\": true, \"endpoint\": "
           "\"tcp://*:5557\"}'");
  p.option("pd", "P:D", "serve from an in-process prefill/decode pair: a prefill instance of P threads and a\n"
                        "decode instance of D threads, each prompt's KV blocks copied between them\n"
                        "(two processes instead: kv_transfer_config's TcpConnector and llm-workbench proxy)");
  p.knobOptions();
  return p;
}

std::string serveUsage() { return makeServeParser().helpText(); }

ServeOptions parseServeArgs(const std::vector<std::string>& args) {
  ArgParser p = makeServeParser();
  p.parseOnly(args);
  ServeOptions o;
  o.help = p.has("help");
  if (o.help) return o;
  for (const char* name : {"model", "host", "served-model-name", "api-key"})
    if (p.has(name) && p.stringOr(name, "").empty()) throw UsageError(std::string("--") + name + ": expected a non-empty value");
  o.modelDir = p.stringOr("model", "");
  o.server.host = p.stringOr("host", o.server.host);
  o.server.port = int(p.integer("port", o.server.port, 0, 65535));
  o.server.servedModelName = p.stringOr("served-model-name", "");
  o.server.apiKey = p.stringOr("api-key", "");
  if (p.has("kv-events-config")) {
    try {
      o.kvEvents = server::parseKvEventsConfig(p.stringOr("kv-events-config", ""));
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }
  p.applyKnobs(o.engine);
  const KvTransferConfig& kv = o.engine.kvTransfer;
  if (kv.enabled() && !kv.tcp())
    throw UsageError("--" + findKnob(knob::kKvTransferConfig)->flag + ": serve takes kv_connector \"TcpConnector\" (" +
                     kv.kvConnector + " is the in-process pair of --pd)");
  if (p.has("pd")) {
    if (kv.enabled())
      throw UsageError("--pd: an in-process pair has its own connector; --" +
                       findKnob(knob::kKvTransferConfig)->flag + " (TcpConnector) is one side of a two-process pair");
    o.pd = parsePdSplit(p.stringOr("pd", ""), o.engine.executor.backend);
  }
  return o;
}

void logLine(const std::string& line) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%m-%d %H:%M:%S", std::localtime(&now));
  std::fprintf(stderr, "INFO %s %s\n", stamp, line.c_str());
  std::fflush(stderr);
}

// Waits for SIGINT/SIGTERM, logging the stat line every interval while traffic flows.
int serveUntilSignal(EngineLoop& loop, server::ApiServer& api, const sigset_t& signals) {
  server::TokenCounts before = api.metrics().tokenCounts();
  auto last = std::chrono::steady_clock::now();
  const timespec interval{kLogIntervalSeconds, 0};
  for (;;) {
    const int sig = sigtimedwait(&signals, nullptr, &interval);
    if (sig == SIGINT || sig == SIGTERM) {
      logLine(std::string("received ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ", aborting " +
              std::to_string(api.numOpenRequests()) + " in-flight request(s) and shutting down");
      return 0;
    }
    const auto now = std::chrono::steady_clock::now();
    const server::TokenCounts counts = api.metrics().tokenCounts();
    const double seconds = std::chrono::duration<double>(now - last).count();
    const bool busy = counts.generationTokens != before.generationTokens ||
                      counts.promptTokensComputed != before.promptTokensComputed;
    if (busy) logLine(server::formatStatLine(counts, before, seconds, *loop.snapshot()));
    before = counts;
    last = now;
  }
}

int serve(const ServeOptions& o) {
  // Blocked before any thread starts, so every thread inherits the mask and only
  // sigtimedwait() sees the signals.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  if (o.engine.executor.backend == "sim")  // before loading: a config-only folder has no weights
    throw UsageError("--" + findKnob(knob::kBackend)->flag +
                     " sim: the API serves a real engine; a simulated one runs no weights (its tokens are stand-ins)");
  const std::string dir = o.modelDir.empty() ? defaultModelDir() : o.modelDir;
  logLine("loading " + dir);
  auto model = loadModel(dir);
  std::unique_ptr<EngineLoop> pairOrOne =
      o.pd ? std::make_unique<EngineLoop>(model, makePdConfig(o.engine, o.pd->prefill, o.pd->decode))
           : std::make_unique<EngineLoop>(model, o.engine);
  EngineLoop& loop = *pairOrOne;
  server::ApiServer api(loop, o.server);
  api.start();
  const auto snap = loop.snapshot();
  logLine("serving model '" + api.modelName() + "' on " + snap->device.backend + " (" + snap->device.name +
          "), " + std::string(knob::kMaxModelLen) + " " + std::to_string(snap->maxModelLen));
  logLine("API at " + api.address() + "/v1 (OpenAI-compatible), metrics at " + api.address() + "/metrics" +
          (o.server.apiKey.empty() ? "" : "; API key required"));
  if (o.pd)
    logLine("prefill/decode pair in this process: a prefill instance of " + std::to_string(o.pd->prefill) +
            " thread(s), a decode instance of " + std::to_string(o.pd->decode) +
            " thread(s); each prompt's KV blocks are copied from P to D");
  if (api.kvPort() > 0)
    logLine("KV connector TcpConnector: kv_producer; consumers pull blocks from " + o.engine.kvTransfer.kvIp + ":" +
            std::to_string(api.kvPort()));
  else if (o.engine.kvTransfer.tcp())
    logLine("KV connector TcpConnector: kv_consumer; pulls blocks from the producer each request names");
  server::KvEventPublisher kvEvents(loop, o.kvEvents);
  if (o.kvEvents.active()) {
    kvEvents.start();
    logLine("KV cache events on " + kvEvents.endpoint() +
            (kvEvents.replayEndpoint().empty() ? "" : ", replay on " + kvEvents.replayEndpoint()) +
            (o.kvEvents.topic.empty() ? "" : ", topic '" + o.kvEvents.topic + "'"));
  }
  const int rc = serveUntilSignal(loop, api, signals);
  api.stop();
  kvEvents.stop();
  logLine("stopped");
  return rc;
}

}  // namespace

int runServe(int argc, char** argv) {
  try {
    const ServeOptions o = parseServeArgs(std::vector<std::string>(argv + 1, argv + argc));
    if (o.help) {
      std::fputs(serveUsage().c_str(), stdout);
      return 0;
    }
    return serve(o);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "llm-workbench serve: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llm-workbench serve: %s\n", e.what());
    return 1;
  }
}

}  // namespace lwb::app
