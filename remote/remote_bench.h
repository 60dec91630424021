#pragma once
// `llm-workbench bench --endpoint URL`: the same synthetic workload as the local bench
// (engine/bench/workload.h: prompts, Poisson arrival times, seed), sent as token-id
// prompts to a remote server's streaming /v1/completions over many concurrent streams.
// Each request is timed on the client: arrival = when it was sent, a token time per
// streamed chunk that carried text (as `vllm bench serve` does), output tokens from the
// final usage chunk. The result is the local bench's BenchReport, plus what the
// server's /metrics said (scraped about once a second).
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/bench/bench_report.h"
#include "engine/bench/bench_runner.h"
#include "engine/bench/workload.h"
#include "remote/kv_event_subscriber.h"
#include "remote/metrics_scraper.h"
#include "remote/openai_client.h"
#include "remote/server_config.h"

namespace lwb::remote {

constexpr int kMaxStreams = 256;  // concurrent streams when --max-concurrency is not given

struct RemoteBenchOptions {
  ClientOptions client;
  std::string model;                 // the served model name to ask for
  int maxConcurrency = 0;            // max_concurrency; 0 = min(num_prompts, kMaxStreams)
  double scrapeIntervalSeconds = 1.0;
  bool warmUp = true;                // one short request first; its failure aborts the run
  OpenAiClient::Clock clock;         // the run's times on this clock; unset = seconds since the run started
  // The server's KV events: each request's missed prompt tokens are then explained by
  // reason as far as the events allow (remote_prefix_miss.h); nullptr = not explained.
  const KvEventSubscriber* kvEvents = nullptr;
};

// What a front-end watching a run live hears (the window's load generator), called on
// the run's stream threads, and how it stops one early.
struct RemoteBenchHooks {
  std::function<void(int index, double sendTime)> onSent;
  std::function<void(int index, const BenchRequestRecord& record)> onFinished;
  // Set: nothing more is sent and the streams in flight end as aborted ("canceled");
  // requests never sent are left out of the report.
  const std::atomic<bool>* cancel = nullptr;
};

struct RemoteBenchRun {
  BenchReport report;
  ServerObservation server;
  RemoteServerConfig serverConfig;  // read before the run
  // With kvEvents: prompt tokens the events showed cached when sent that the server
  // computed anyway (outside the reasons), and the requests whose miss could not be
  // explained (no usage cached_tokens, or no block stored yet when sent).
  bool prefixMissExplained = false;  // kvEvents was given
  int64_t prefixHeldWhenSentTokens = 0;
  int numPrefixUnexplained = 0;
};

// The body of one request: model, token-id prompt, max_tokens, temperature, ignore_eos, seed.
nlohmann::json completionBody(const SyntheticRequest& request, const std::string& model);

// Throws lwb::Error when the warm-up request fails; every later failure (refused
// connection, HTTP errors, streams cut short or stalled) is recorded per request.
RemoteBenchRun runRemoteBenchmark(const RemoteBenchOptions& options, const std::vector<SyntheticRequest>& workload,
                                  const BenchProgress& progress = {}, const RemoteBenchHooks& hooks = {});

// The client's view of one stream as a request record (times relative to the run).
BenchRequestRecord toRequestRecord(const StreamResult& stream, int numPromptTokens, RequestId id);

}  // namespace lwb::remote
