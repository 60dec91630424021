// The same closed-loop workload (32 concurrent streams, random prompts, fixed output
// length, greedy) served twice by one engine: through the HTTP API (streaming
// /v1/completions over loopback) and in-process (the same submit and event stream the
// server uses, without HTTP). Prints output throughput and median TTFT side by side,
// with the bounds the issue sets: throughput >= 95% of in-process, median TTFT overhead
// <= 2 ms. Never part of the test suite.
// Usage: bench_http [--model DIR] [--streams 32] [--requests 96] [--input-len 64] [--output-len 64]
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "server/api_server.h"
#include "server/request_hub.h"
#include "server/server_metrics.h"

using namespace lwb;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string modelDir;
  int streams = 32, requests = 96, inputLen = 64, outputLen = 64;
};

struct Result {
  double seconds = 0;
  int64_t outputTokens = 0;
  std::vector<double> ttftMs;
};

std::vector<std::vector<int>> makePrompts(const Model& model, int n, int len) {
  std::mt19937 rng(7);
  const auto ids = model.tokenizer->ordinaryIds();
  std::vector<std::vector<int>> out(static_cast<size_t>(n));
  for (auto& p : out) {
    p.push_back(model.tokenizer->bosId());
    for (int i = 0; i < len; ++i) p.push_back(ids[rng() % ids.size()]);
  }
  return out;
}

// Runs `one(i)` for every request index on `streams` client threads (closed loop).
template <typename F>
Result runClosedLoop(int streams, int requests, F one) {
  std::atomic<int> next{0};
  std::vector<Result> perThread(static_cast<size_t>(streams));
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < streams; ++t)
    threads.emplace_back([&, t] {
      for (int i; (i = next++) < requests;) one(i, perThread[size_t(t)]);
    });
  for (auto& th : threads) th.join();
  Result all;
  all.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const Result& r : perThread) {
    all.outputTokens += r.outputTokens;
    all.ttftMs.insert(all.ttftMs.end(), r.ttftMs.begin(), r.ttftMs.end());
  }
  return all;
}

RequestInput input(const std::vector<int>& prompt, int outputLen) {
  RequestInput in;
  in.promptTokenIds = prompt;
  in.sampling.temperature = 0;
  in.sampling.maxTokens = outputLen;
  in.sampling.ignoreEos = true;
  in.tag = "bench";
  return in;
}

Result inProcess(EngineLoop& loop, const Options& o, const std::vector<std::vector<int>>& prompts) {
  server::ServerMetrics metrics(4096);
  server::RequestHub hub(loop, metrics);
  return runClosedLoop(o.streams, o.requests, [&](int i, Result& r) {
    const auto sent = Clock::now();
    auto stream = hub.submit(input(prompts[size_t(i)], o.outputLen));
    bool first = true;
    for (;;) {
      auto u = stream->wait(std::chrono::milliseconds(100));
      for (const TokenDelta& d : u.deltas) {
        if (first && !d.newTokenIds.empty()) {
          r.ttftMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
          first = false;
        }
        r.outputTokens += int64_t(d.newTokenIds.size());
      }
      if (u.finished) break;
    }
  });
}

Result overHttp(int port, const Options& o, const std::vector<std::vector<int>>& prompts) {
  return runClosedLoop(o.streams, o.requests, [&](int i, Result& r) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(600, 0);
    nlohmann::json body = {{"prompt", prompts[size_t(i)]}, {"max_tokens", o.outputLen}, {"temperature", 0},
                           {"ignore_eos", true}, {"stream", true}, {"stream_options", {{"include_usage", true}}}};
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/completions";
    req.body = body.dump();
    req.set_header("Content-Type", "application/json");
    const auto sent = Clock::now();
    bool first = true;
    std::string all;
    req.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
      if (first && std::string_view(data, len).find("\"text\"") != std::string_view::npos) {
        r.ttftMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
        first = false;
      }
      all.append(data, len);
      return true;
    };
    client.send(req);
    const size_t at = all.rfind("\"completion_tokens\":");
    if (at != std::string::npos) r.outputTokens += std::atoll(all.c_str() + at + 20);
  });
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string f = argv[i];
    const char* v = argv[i + 1];
    if (f == "--model") o.modelDir = v;
    else if (f == "--streams") o.streams = std::atoi(v);
    else if (f == "--requests") o.requests = std::atoi(v);
    else if (f == "--input-len") o.inputLen = std::atoi(v);
    else if (f == "--output-len") o.outputLen = std::atoi(v);
    else std::fprintf(stderr, "bench_http: ignoring unknown flag %s\n", f.c_str());
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  auto model = loadModel(o.modelDir.empty() ? defaultModelDir() : o.modelDir);
  EngineLoop loop(model, EngineConfig{});
  server::ServerOptions so;
  so.port = 0;
  server::ApiServer api(loop, so);
  const int port = api.start();
  const auto prompts = makePrompts(*model, o.requests, o.inputLen);
  std::printf("bench_http: %d requests, %d concurrent streams, %d prompt + %d output tokens, on %s\n", o.requests,
              o.streams, o.inputLen + 1, o.outputLen, loop.snapshot()->device.name.c_str());
  inProcess(loop, Options{o.modelDir, o.streams, o.streams, o.inputLen, 8}, prompts);  // warm up
  // Alternate so that drift of a shared machine hits both sides alike.
  Result in1 = inProcess(loop, o, prompts), http1 = overHttp(port, o, prompts);
  Result http2 = overHttp(port, o, prompts), in2 = inProcess(loop, o, prompts);
  const double inTput = double(in1.outputTokens + in2.outputTokens) / (in1.seconds + in2.seconds);
  const double httpTput = double(http1.outputTokens + http2.outputTokens) / (http1.seconds + http2.seconds);
  in1.ttftMs.insert(in1.ttftMs.end(), in2.ttftMs.begin(), in2.ttftMs.end());
  http1.ttftMs.insert(http1.ttftMs.end(), http2.ttftMs.begin(), http2.ttftMs.end());
  const double inTtft = median(in1.ttftMs), httpTtft = median(http1.ttftMs);
  std::printf("%-28s %14s %14s\n", "", "in-process", "HTTP");
  std::printf("%-28s %14.1f %14.1f   ratio %.3f (bound >= 0.95: %s)\n", "output throughput (tok/s)", inTput,
              httpTput, httpTput / inTput, httpTput / inTput >= 0.95 ? "ok" : "MISSED");
  std::printf("%-28s %14.2f %14.2f   overhead %.2f ms (bound <= 2 ms: %s)\n", "median TTFT (ms)", inTtft, httpTtft,
              httpTtft - inTtft, httpTtft - inTtft <= 2.0 ? "ok" : "MISSED");
  api.stop();
  return 0;
}
