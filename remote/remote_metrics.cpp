#include "remote/remote_metrics.h"

#include <initializer_list>

namespace lwb::remote {
namespace {

// The first of several spellings a server version may use (vLLM renamed gpu_* to
// kv_*/prefix_*, and time_per_output_token to inter_token_latency).
std::optional<double> firstSum(const PromText& m, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto v = m.sum(n)) return v;
  return std::nullopt;
}

std::optional<double> firstMax(const PromText& m, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto v = m.max(n)) return v;
  return std::nullopt;
}

std::optional<PromHistogram> firstHistogram(const PromText& m, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto h = m.histogram(n)) return h;
  return std::nullopt;
}

void readVllm(const PromText& m, RemoteServerState& s) {
  s.numRunning = m.sum("vllm:num_requests_running");
  s.numWaiting = m.sum("vllm:num_requests_waiting");
  s.kvCacheUsage = firstMax(m, {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"});
  s.prefixCacheQueries = firstSum(m, {"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"});
  s.prefixCacheHits = firstSum(m, {"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"});
  s.numPreemptions = m.sum("vllm:num_preemptions_total");
  s.promptTokens = m.sum("vllm:prompt_tokens_total");
  s.generationTokens = m.sum("vllm:generation_tokens_total");
  s.numRequestsFinished = m.sum("vllm:request_success_total");
  s.specDraftTokens = m.sum("vllm:spec_decode_num_draft_tokens_total");
  s.specAcceptedTokens = m.sum("vllm:spec_decode_num_accepted_tokens_total");
  s.ttft = m.histogram("vllm:time_to_first_token_seconds");
  s.itl = firstHistogram(m, {"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"});
  s.e2e = m.histogram("vllm:e2e_request_latency_seconds");
  s.iterationTokens = m.histogram("vllm:iteration_tokens_total");
  if (s.iterationTokens) s.numIterations = s.iterationTokens->count;
}

void readSglang(const PromText& m, RemoteServerState& s) {
  s.numRunning = m.sum("sglang:num_running_reqs");
  s.numWaiting = m.sum("sglang:num_queue_reqs");
  s.kvCacheUsage = m.max("sglang:token_usage");
  s.prefixCacheHitRate = m.max("sglang:cache_hit_rate");
  s.promptTokens = m.sum("sglang:prompt_tokens_total");
  s.generationTokens = m.sum("sglang:generation_tokens_total");
  // cached_tokens_total counts prompt tokens served from the radix cache; every prompt
  // token was looked up, so the prompt tokens are the queries.
  s.prefixCacheHits = m.sum("sglang:cached_tokens_total");
  if (s.prefixCacheHits) s.prefixCacheQueries = s.promptTokens;
  s.numRequestsFinished = m.sum("sglang:num_requests_total");
  s.ttft = m.histogram("sglang:time_to_first_token_seconds");
  s.itl = firstHistogram(m, {"sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"});
  s.e2e = m.histogram("sglang:e2e_request_latency_seconds");
}

void readLlamaCpp(const PromText& m, RemoteServerState& s) {
  s.numRunning = m.sum("llamacpp:requests_processing");
  s.numWaiting = m.sum("llamacpp:requests_deferred");
  s.kvCacheUsage = m.max("llamacpp:kv_cache_usage_ratio");  // removed in 2025 builds: then null
  s.promptTokens = m.sum("llamacpp:prompt_tokens_total");
  s.generationTokens = m.sum("llamacpp:tokens_predicted_total");
  s.numIterations = m.sum("llamacpp:n_decode_total");
}

}  // namespace

std::string serverKindName(ServerKind kind) {
  switch (kind) {
    case ServerKind::Vllm: return "vllm";
    case ServerKind::Sglang: return "sglang";
    case ServerKind::LlamaCpp: return "llama.cpp";
    case ServerKind::Unknown: break;
  }
  return "unknown";
}

ServerKind detectServerKind(const PromText& m) {
  for (const auto& s : m.samples) {
    if (s.name.rfind("vllm:", 0) == 0) return ServerKind::Vllm;
    if (s.name.rfind("sglang:", 0) == 0) return ServerKind::Sglang;
    if (s.name.rfind("llamacpp:", 0) == 0) return ServerKind::LlamaCpp;
  }
  return ServerKind::Unknown;
}

RemoteServerState readServerState(const PromText& m) {
  RemoteServerState s;
  s.kind = detectServerKind(m);
  if (s.kind == ServerKind::Vllm) readVllm(m, s);
  else if (s.kind == ServerKind::Sglang) readSglang(m, s);
  else if (s.kind == ServerKind::LlamaCpp) readLlamaCpp(m, s);
  return s;
}

}  // namespace lwb::remote
