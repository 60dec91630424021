#pragma once
// What a remote server's /metrics says about its engine, whichever server it is: vLLM
// (vllm:*), SGLang (sglang:*) or llama.cpp's server (llamacpp:*, with --metrics). Each
// field is nullopt when that server does not export it, so a front-end can say so
// plainly instead of showing a zero.
#include <optional>
#include <string>

#include "wire/prometheus_text.h"

namespace lwb::remote {

enum class ServerKind { Unknown, Vllm, Sglang, LlamaCpp };
std::string serverKindName(ServerKind kind);  // "vllm", "sglang", "llama.cpp", "unknown"

// From the metric names' prefixes (the first known prefix wins).
ServerKind detectServerKind(const PromText& metrics);

struct RemoteServerState {
  ServerKind kind = ServerKind::Unknown;
  // Gauges (now).
  std::optional<double> numRunning, numWaiting;
  std::optional<double> kvCacheUsage;       // [0, 1]
  std::optional<double> prefixCacheHitRate; // [0, 1], SGLang's own gauge
  // Counters (since the server started).
  std::optional<double> prefixCacheQueries, prefixCacheHits;  // tokens
  std::optional<double> numPreemptions;
  std::optional<double> promptTokens, generationTokens;
  std::optional<double> numRequestsFinished;  // vLLM: request_success over reasons
  std::optional<double> numIterations;        // engine steps (vLLM iteration_tokens count, llama.cpp n_decode)
  std::optional<double> specDraftTokens, specAcceptedTokens;
  // Latency histograms (seconds) where exported.
  std::optional<PromHistogram> ttft, itl, e2e, iterationTokens;
};

RemoteServerState readServerState(const PromText& metrics);

}  // namespace lwb::remote
