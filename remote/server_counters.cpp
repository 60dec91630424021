#include "remote/server_counters.h"

#include <utility>

namespace lwb::remote {

namespace {

std::optional<double> difference(const std::optional<double>& before, const std::optional<double>& after) {
  if (!before || !after) return std::nullopt;
  return *after - *before;
}

std::optional<double> tokensProcessed(const RemoteServerState& s) {
  if (!s.promptTokens || !s.generationTokens) return std::nullopt;
  return *s.promptTokens + *s.generationTokens;
}

// Any counter lower than before: the server restarted (or another one answers now).
bool wentBackwards(const RemoteServerState& a, const RemoteServerState& b) {
  auto lower = [](const std::optional<double>& x, const std::optional<double>& y) { return x && y && *y < *x; };
  const bool histogram = a.iterationTokens && b.iterationTokens && b.iterationTokens->count < a.iterationTokens->count;
  return histogram || lower(a.prefixCacheQueries, b.prefixCacheQueries) || lower(a.numPreemptions, b.numPreemptions) ||
         lower(a.numIterations, b.numIterations) || lower(a.promptTokens, b.promptTokens) ||
         lower(a.generationTokens, b.generationTokens);
}

std::optional<double> tokensPerIteration(const RemoteServerState& a, const RemoteServerState& b) {
  if (a.iterationTokens && b.iterationTokens) {
    const double steps = b.iterationTokens->count - a.iterationTokens->count;
    if (steps <= 0) return std::nullopt;
    return (b.iterationTokens->sum - a.iterationTokens->sum) / steps;
  }
  const auto steps = difference(a.numIterations, b.numIterations);
  const auto tokens = difference(tokensProcessed(a), tokensProcessed(b));
  if (!steps || !tokens || *steps <= 0) return std::nullopt;
  return *tokens / *steps;
}

std::optional<double> iterations(const RemoteServerState& a, const RemoteServerState& b) {
  if (a.iterationTokens && b.iterationTokens) return b.iterationTokens->count - a.iterationTokens->count;
  return difference(a.numIterations, b.numIterations);
}

std::optional<double> prefixHitRate(const RemoteServerState& a, const RemoteServerState& b) {
  const auto queries = difference(a.prefixCacheQueries, b.prefixCacheQueries);
  const auto hits = difference(a.prefixCacheHits, b.prefixCacheHits);
  if (queries && hits) return *queries > 0 ? std::optional(*hits / *queries) : std::nullopt;
  return b.prefixCacheHitRate;  // SGLang's own gauge
}

std::optional<double> cumulativeHitRate(const RemoteServerState& s) {
  if (!s.prefixCacheQueries || !s.prefixCacheHits || *s.prefixCacheQueries <= 0) return std::nullopt;
  return *s.prefixCacheHits / *s.prefixCacheQueries;
}

}  // namespace

CounterExports counterExports(const RemoteServerState& s) {
  CounterExports e;
  e.tokensPerIteration = s.iterationTokens.has_value() || (s.numIterations && tokensProcessed(s));
  e.prefixHitRate = (s.prefixCacheQueries && s.prefixCacheHits) || s.prefixCacheHitRate;
  e.preemptions = s.numPreemptions.has_value();
  return e;
}

std::string serverDisplayName(ServerKind kind) {
  switch (kind) {
    case ServerKind::Vllm: return "vLLM";
    case ServerKind::Sglang: return "SGLang";
    case ServerKind::LlamaCpp: return "llama.cpp";
    case ServerKind::Unknown: break;
  }
  return "This server";
}

std::optional<CounterDeltas> CounterDeltaTracker::add(double time, const RemoteServerState& s) {
  const std::optional<RemoteServerState> before = std::exchange(last_, s);
  const double beforeTime = std::exchange(lastTime_, time);
  if (!before || before->kind != s.kind || wentBackwards(*before, s)) return std::nullopt;
  CounterDeltas d;
  d.time = time;
  d.seconds = time - beforeTime;
  d.tokensPerIteration = tokensPerIteration(*before, s);
  d.numIterations = iterations(*before, s);
  d.prefixHitRate = prefixHitRate(*before, s);
  d.prefixHitRateCumulative = cumulativeHitRate(s);
  d.numPreemptions = difference(before->numPreemptions, s.numPreemptions);
  return d;
}

}  // namespace lwb::remote
