#include "remote/remote_report.h"

#include <cstdio>

namespace lwb::remote {
namespace {

using nlohmann::json;

std::optional<double> delta(const std::optional<RemoteServerState>& before, const std::optional<RemoteServerState>& after,
                            std::optional<double> RemoteServerState::*field) {
  if (!before || !after || !(*before.*field) || !(*after.*field)) return std::nullopt;
  return *(*after.*field) - *(*before.*field);
}

json orNull(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json seriesJson(const std::vector<ServerSample>& series) {
  json out = json::array();
  for (const auto& s : series)
    out.push_back({{"time", s.time}, {"num_requests_running", orNull(s.numRunning)},
                   {"num_requests_waiting", orNull(s.numWaiting)}, {"kv_cache_usage", orNull(s.kvCacheUsage)},
                   {"slots_processing", orNull(s.numSlotsProcessing)}});
  return out;
}

json serverJson(const ServerObservation& server, const ServerFigures& f, const RemoteServerConfig& config) {
  json j = {{"kind", serverKindName(server.kind)},
            {"metrics_scrapes", server.numScrapes},
            {"metrics_scrape_errors", server.numScrapeErrors},
            {"last_scrape_error", server.lastScrapeError},
            {"prompt_tokens", orNull(f.promptTokens)},
            {"generation_tokens", orNull(f.generationTokens)},
            {"requests_finished", orNull(f.numRequestsFinished)},
            {"series", seriesJson(server.series)},
            {"config", config.toJson()}};  // the server's start-up flags, as it reports them
  if (!server.slotsError.empty()) j["slots_error"] = server.slotsError;
  json missing = json::array();
  for (const auto& [key, v] : {std::pair{"prefix_cache_hits", f.prefixCacheHits}, {"num_preemptions", f.numPreemptions},
                               {"max_kv_cache_usage", f.maxKvCacheUsage}, {"num_steps", f.numSteps}})
    if (!v) missing.push_back(key);
  j["not_exported"] = std::move(missing);  // null in the report because the server does not say
  return j;
}

}  // namespace

ServerFigures serverFigures(const ServerObservation& s) {
  ServerFigures f;
  f.prefixCacheQueries = delta(s.before, s.after, &RemoteServerState::prefixCacheQueries);
  f.prefixCacheHits = delta(s.before, s.after, &RemoteServerState::prefixCacheHits);
  if (f.prefixCacheQueries && f.prefixCacheHits)
    f.prefixCacheHitRate = *f.prefixCacheQueries > 0 ? *f.prefixCacheHits / *f.prefixCacheQueries : 0.0;
  f.numPreemptions = delta(s.before, s.after, &RemoteServerState::numPreemptions);
  f.maxKvCacheUsage = s.maxKvCacheUsage;
  f.numSteps = delta(s.before, s.after, &RemoteServerState::numIterations);
  f.promptTokens = delta(s.before, s.after, &RemoteServerState::promptTokens);
  f.generationTokens = delta(s.before, s.after, &RemoteServerState::generationTokens);
  f.numRequestsFinished = delta(s.before, s.after, &RemoteServerState::numRequestsFinished);
  return f;
}

json remoteBenchConfig(const WorkloadOptions& workload, const RemoteBenchOptions& o, const RemoteBenchRun& run) {
  json j = workloadJson(workload);
  j["endpoint"] = o.client.url;
  j["model"] = o.model;
  j["server_kind"] = serverKindName(run.server.kind);
  j["max_concurrency"] = o.maxConcurrency > 0 ? json(o.maxConcurrency) : json(nullptr);
  return j;
}

json remoteBenchJson(const RemoteBenchRun& run) {
  json j = benchReportJson(run.report);
  const ServerFigures f = serverFigures(run.server);
  j["prefix_cache_queries"] = orNull(f.prefixCacheQueries);
  j["prefix_cache_hits"] = orNull(f.prefixCacheHits);
  j["prefix_cache_hit_rate"] = orNull(f.prefixCacheHitRate);
  j["num_preemptions"] = orNull(f.numPreemptions);
  j["max_kv_cache_usage"] = orNull(f.maxKvCacheUsage);
  j["num_steps"] = orNull(f.numSteps);
  j["server"] = serverJson(run.server, f, run.serverConfig);
  // Missed tokens by reason only as far as the server's KV events explain them.
  if (!run.prefixMissExplained) {
    j["prefix_cache_missed_tokens"] = nullptr;
  } else {
    j["prefix_cache_missed_held_when_sent_tokens"] = run.prefixHeldWhenSentTokens;
    j["num_prefix_miss_unexplained_requests"] = run.numPrefixUnexplained;
  }
  return j;
}

std::string formatRemoteSummary(const RemoteBenchRun& run) {
  std::string out = formatBenchSummary(run.report);
  // The local summary's engine section has the in-process engine's figures; a remote
  // run has the server's, or says that it does not export them.
  const size_t engine = out.find("----------------------Engine");
  if (engine != std::string::npos) out.resize(engine);
  const ServerFigures f = serverFigures(run.server);
  const std::string kind = serverKindName(run.server.kind);
  char line[200] = {};
  auto row = [&](const char* label, const std::optional<double>& v, int precision) {
    if (v) std::snprintf(line, sizeof line, "%-40s%-10.*f\n", label, precision, *v);
    else std::snprintf(line, sizeof line, "%-40s%s\n", label, "n/a (not exported)");
    out += line;
  };
  std::snprintf(line, sizeof line, "-------------Server /metrics (%s)-------------\n", kind.c_str());
  out += line;
  row("Prefix cache hit rate:", f.prefixCacheHitRate, 3);
  row("Preemptions:", f.numPreemptions, 0);
  row("Max KV cache usage:", f.maxKvCacheUsage, 3);
  row("Engine steps:", f.numSteps, 0);
  if (run.prefixMissExplained) {  // from the KV events (remote_prefix_miss.h)
    for (int i = 0; i < kNumPrefixMissReasons; ++i) {
      if (run.report.prefixMissTokens[size_t(i)] == 0) continue;
      const std::string label = "Prompt tokens missed, " + std::string(prefixMissReasonName(prefixMissReasonAt(i))) + ":";
      std::snprintf(line, sizeof line, "%-40s%lld\n", label.c_str(), (long long)run.report.prefixMissTokens[size_t(i)]);
      out += line;
    }
    std::snprintf(line, sizeof line, "%-40s%lld\n", "Missed, though cached when sent:", (long long)run.prefixHeldWhenSentTokens);
    out += line;
    if (run.numPrefixUnexplained > 0) {
      std::snprintf(line, sizeof line, "%-40s%d\n", "Requests with misses not explained:", run.numPrefixUnexplained);
      out += line;
    }
  }
  if (!run.serverConfig.entries.empty()) {
    std::string flags;  // the server's start-up flags, as far as it reports them
    for (const auto& e : run.serverConfig.entries)
      if (e.key.rfind("default ", 0) != 0) flags += (flags.empty() ? "" : ", ") + e.key + "=" + e.value;
    std::snprintf(line, sizeof line, "%-40s%s\n", "Server configuration:", flags.substr(0, 150).c_str());
    out += line;
  }
  if (run.server.numScrapeErrors > 0) {
    std::snprintf(line, sizeof line, "%-40s%d of %d (%s)\n", "Failed scrapes:", run.server.numScrapeErrors,
                  run.server.numScrapes, run.server.lastScrapeError.substr(0, 80).c_str());
    out += line;
  }
  out += "==================================================\n";
  return out;
}

}  // namespace lwb::remote
