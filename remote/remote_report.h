#pragma once
// The saved JSON and the printed summary of a remote bench. The latency and throughput
// keys are the local bench's (`vllm bench serve`'s), measured on the client. The keys the
// local bench fills from its engine's steps (prefix_cache_*, num_preemptions,
// max_kv_cache_usage, num_steps) come from the server's /metrics over the run — counter
// differences between the first and the last scrape — and are null when the server
// does not export them (the "server" object says which and why).
#include <string>

#include <nlohmann/json.hpp>

#include "remote/remote_bench.h"

namespace lwb::remote {

// The engine-side figures of a run from the scrapes; nullopt = not exported.
struct ServerFigures {
  std::optional<double> prefixCacheQueries, prefixCacheHits, prefixCacheHitRate;
  std::optional<double> numPreemptions, maxKvCacheUsage, numSteps;
  std::optional<double> promptTokens, generationTokens, numRequestsFinished;
};
ServerFigures serverFigures(const ServerObservation& server);

// The "config" object of a remote run, as `bench --endpoint` and the window save it: the
// workload (workloadJson's keys), endpoint, model, server_kind and max_concurrency (null
// = the default). The server's knobs are not the client's to know; "server" has them.
nlohmann::json remoteBenchConfig(const WorkloadOptions& workload, const RemoteBenchOptions& options,
                                 const RemoteBenchRun& run);

nlohmann::json remoteBenchJson(const RemoteBenchRun& run);
std::string formatRemoteSummary(const RemoteBenchRun& run);

}  // namespace lwb::remote
