// `llm-workbench serve`: the OpenAI-compatible HTTP API and /metrics, headless, in the
// manner of `vllm serve`. Scheduler knobs use the bench command's flag parser.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "app/commands.h"
#include "engine/engine_loop.h"
#include "engine/metrics/bench_options.h"
#include "engine/model/model.h"
#include "server/api_server.h"
#include "server/server_metrics.h"

namespace lwb::app {
namespace {

constexpr int kLogIntervalSeconds = 10;  // vLLM's stat-logging interval

struct ServeOptions {
  server::ServerOptions server;
  BenchOptions engine;  // --model and the knobs
  bool help = false;
};

std::string serveUsage() {
  const std::string bench = benchUsage();
  const size_t from = bench.find("Engine knobs"), to = bench.find("Output:");
  return "Usage: llm-workbench serve [options]\n"
         "Serves the model over an OpenAI-compatible HTTP API (/v1/completions,\n"
         "/v1/chat/completions, /v1/models, /tokenize, /detokenize, /health, /version) and\n"
         "Prometheus /metrics with vLLM's metric names. Ctrl-C or SIGTERM aborts in-flight\n"
         "requests and exits.\n\n"
         "Server:\n"
         "  --model DIR                     model folder or .gguf file (default: the bundled austen-chat-11m)\n"
         "  --host ADDR                     address to bind (default 127.0.0.1: this machine only)\n"
         "  --port N                        TCP port (default 8000; 0 = any free port)\n"
         "  --served-model-name NAME        the model id clients use (default: the folder's name)\n"
         "  --api-key KEY                   require 'Authorization: Bearer KEY' on /v1 routes\n"
         "  --help                          this text\n" +
         bench.substr(from, to - from);
}

bool takeServerFlag(ServeOptions& o, const std::string& flag, const std::string& value) {
  if (flag == "--host") o.server.host = value;
  else if (flag == "--served-model-name") o.server.servedModelName = value;
  else if (flag == "--api-key") o.server.apiKey = value;
  else if (flag == "--port") {
    size_t used = 0;
    int port = -1;
    try {
      port = std::stoi(value, &used);
    } catch (const std::exception&) {
    }
    if (used != value.size() || port < 0 || port > 65535)
      throw UsageError("--port '" + value + "': expected an integer in 0..65535");
    o.server.port = port;
  } else {
    return false;
  }
  if (value.empty()) throw UsageError(flag + ": expected a non-empty value");
  return true;
}

// Server flags here; --model and the knobs go to the bench parser; workload and output
// flags of bench mean nothing to a server.
ServeOptions parseServeArgs(const std::vector<std::string>& args) {
  ServeOptions o;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    const size_t eq = flag.find('=');
    const bool inlineValue = flag.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inlineValue) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    if (flag == "--help" || flag == "-h") o.help = true;
    if (flag == "--host" || flag == "--port" || flag == "--served-model-name" || flag == "--api-key") {
      if (!inlineValue && i + 1 >= args.size()) throw UsageError(flag + ": missing value");
      takeServerFlag(o, flag, inlineValue ? value : args[++i]);
      continue;
    }
    if (isWorkloadOption(flag) || flag == "--ignore-eos" || flag == "--json" || flag == "--trace" ||
        flag == "--csv" || flag == "--quiet")
      throw UsageError("unknown option '" + flag + "' (see llm-workbench serve --help)");
    rest.push_back(args[i]);
  }
  if (o.help) return o;
  BenchOptions parsed = parseBenchArgs(rest);
  o.engine = parsed;
  try {
    o.engine.engine.validate();
  } catch (const Error& e) {
    throw UsageError(e.what());
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

  const std::string dir = o.engine.modelDir.empty() ? defaultModelDir() : o.engine.modelDir;
  logLine("loading " + dir);
  EngineLoop loop(loadModel(dir), o.engine.engine);
  server::ApiServer api(loop, o.server);
  api.start();
  const auto snap = loop.snapshot();
  logLine("serving model '" + api.modelName() + "' on " + snap->device.backend + " (" + snap->device.name +
          "), max_model_len " + std::to_string(snap->config.effectiveMaxModelLen(loop.model()->config)));
  logLine("API at " + api.address() + "/v1 (OpenAI-compatible), metrics at " + api.address() + "/metrics" +
          (o.server.apiKey.empty() ? "" : "; API key required"));
  const int rc = serveUntilSignal(loop, api, signals);
  api.stop();
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
