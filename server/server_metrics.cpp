#include "server/server_metrics.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace lwb::server {
namespace {

std::string escapeLabel(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// The shortest text that reads back as the same double, as vLLM's Python prints it:
// gpu_memory_utilization="0.9" and le="0.1", not 0.90000000000000002. Whole numbers stay
// whole (le="100000", a counter's 1000000), where the shortest form would be 1e+05.
std::string number(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc() ? end : buf);
}

// One metric family at a time, in the order Prometheus expects (HELP, TYPE, samples).
class Writer {
 public:
  explicit Writer(const std::string& modelName)
      : labels_("model_name=\"" + escapeLabel(modelName) + "\",engine=\"0\"") {}

  void gauge(const char* name, const char* help, double value) {
    header(name, help, "gauge");
    sample(name, "", value);
  }
  void counter(const char* name, const char* help, double value) {
    header(name, help, "counter");
    sample(std::string(name) + "_total", "", value);
  }
  void histogram(const char* name, const char* help, const Histogram& h) {
    header(name, help, "histogram");
    const auto cumulative = h.cumulativeCounts();
    for (size_t i = 0; i < h.upperBounds().size(); ++i)
      sample(std::string(name) + "_bucket", ",le=\"" + number(h.upperBounds()[i]) + "\"", double(cumulative[i]));
    sample(std::string(name) + "_bucket", ",le=\"+Inf\"", double(h.count()));
    sample(std::string(name) + "_count", "", double(h.count()));
    sample(std::string(name) + "_sum", "", h.sum());
  }
  void header(const char* name, const char* help, const char* type) {
    out_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void sample(const std::string& name, const std::string& extraLabels, double value) {
    out_ += name + "{" + labels_ + extraLabels + "} " + number(value) + "\n";
  }
  std::string take() { return std::move(out_); }

 private:
  std::string labels_, out_;
};

}  // namespace

ServerMetrics::ServerMetrics(int maxModelLen)
    : ttft_(Histogram::ttftBuckets()),
      itl_(Histogram::itlBuckets()),
      e2e_(Histogram::requestLatencyBuckets()),
      queue_(Histogram::requestLatencyBuckets()),
      prefill_(Histogram::requestLatencyBuckets()),
      decode_(Histogram::requestLatencyBuckets()),
      promptLen_(Histogram::oneTwoFiveBuckets(maxModelLen)),
      generationLen_(Histogram::oneTwoFiveBuckets(maxModelLen)),
      iterationTokens_(Histogram::iterationTokenBuckets()) {
  for (FinishReason r : {FinishReason::Stop, FinishReason::Length, FinishReason::Abort, FinishReason::Error,
                         FinishReason::Rejected})
    finishedByReason_[finishReasonName(r)] = 0;
}

void ServerMetrics::observeStep(const StepRecord& step) {
  std::lock_guard lock(mu_);
  counts_.promptTokensComputed += step.numPrefillTokens;
  counts_.generationTokens += step.numDecodeTokens;
  iterationTokens_.observe(step.numPrefillTokens + step.numDecodeTokens);
}

void ServerMetrics::observeFinished(const RequestTimeline& t) {
  std::lock_guard lock(mu_);
  ++finishedByReason_[finishReasonName(t.finishReason)];
  if (t.firstTokenTime) promptTokens_ += t.numPromptTokens;
  auto observe = [](Histogram& h, std::optional<double> v) {
    if (v) h.observe(*v);
  };
  observe(ttft_, t.ttft());
  for (double gap : t.itls()) itl_.observe(gap);
  observe(e2e_, t.e2e());
  observe(queue_, t.queueTime());
  observe(prefill_, t.prefillTime());
  observe(decode_, t.decodeTime());
  promptLen_.observe(t.numPromptTokens);
  generationLen_.observe(t.numOutputTokens);
  if (t.kvTransferTime) {
    ++numKvTransfers_;
    kvTransferBytes_ += t.kvTransferBytes;
    kvTransferSeconds_ += *t.kvTransferTime;
  }
}

TokenCounts ServerMetrics::tokenCounts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

double kvUsage(const EngineSnapshot& s) {
  if (s.kvBlocks.empty()) return 0;
  size_t owned = 0;
  for (const KvBlockInfo& b : s.kvBlocks) owned += b.kind == KvBlockInfo::Kind::Owned;
  return double(owned) / double(s.kvBlocks.size());
}

std::string ServerMetrics::render(const EngineSnapshot& s, const std::string& modelName,
                                  const KvProducerCounts* producer) const {
  std::lock_guard lock(mu_);
  Writer w(modelName);
  w.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", s.numRunning);
  w.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", s.numWaiting);
  w.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", kvUsage(s));
  // vLLM's info gauge: the cache configuration as labels (Python's spelling of booleans),
  // which remote clients show as the server's start-up flags.
  w.header("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", "gauge");
  w.sample("vllm:cache_config_info",
           ",block_size=\"" + std::to_string(s.config.blockSize) + "\",cache_dtype=\"" + s.config.executor.kvCacheDtype +
               "\",enable_prefix_caching=\"" +
               (s.config.enablePrefixCaching ? "True" : "False") + "\",gpu_memory_utilization=\"" +
               number(s.config.executor.gpuMemoryUtilization) + "\",num_gpu_blocks=\"" +
               std::to_string(s.kvBlocks.size()) + "\"",
           1);
  w.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
            double(s.totals.prefixQueryTokens));
  w.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
            double(s.totals.prefixHitTokens));
  // Ours, not vLLM's: why prompt tokens missed, at each request's first admission.
  w.header("lwb:prefix_cache_missed_tokens", "Prompt tokens that missed the prefix cache, by reason.", "counter");
  for (int i = 0; i < kNumPrefixMissReasons; ++i)
    w.sample("lwb:prefix_cache_missed_tokens_total",
             ",reason=\"" + std::string(prefixMissReasonName(prefixMissReasonAt(i))) + "\"",
             double(s.totals.prefixMissTokens[size_t(i)]));
  w.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", double(s.totals.preemptions));
  w.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", double(promptTokens_));
  w.counter("vllm:generation_tokens", "Number of generation tokens processed.", double(s.totals.generatedTokens));
  w.header("vllm:request_success", "Count of successfully processed requests.", "counter");
  for (const auto& [reason, n] : finishedByReason_)
    w.sample("vllm:request_success_total", ",finished_reason=\"" + reason + "\"", double(n));
  if (s.config.speculative.enabled()) {  // vLLM registers these only with a speculative_config
    const SpecDecodeCounts& c = s.totals.specDecode;
    w.counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", double(c.numDrafts));
    w.counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", double(c.numDraftTokens));
    w.counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", double(c.numAcceptedTokens));
    w.header("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position.", "counter");
    for (int pos = 0; pos < s.config.speculative.numSpeculativeTokens; ++pos) {
      const size_t i = size_t(pos);
      const double n = i < c.numAcceptedTokensPerPos.size() ? double(c.numAcceptedTokensPerPos[i]) : 0.0;
      w.sample("vllm:spec_decode_num_accepted_tokens_per_pos_total", ",position=\"" + std::to_string(pos) + "\"", n);
    }
  }
  if (s.config.kvTransfer.tcp()) {  // ours: P/D across processes
    w.counter("lwb:kv_transfers", "Requests whose prompt KV blocks were pulled from the prefill instance.",
              double(numKvTransfers_));
    w.counter("lwb:kv_transfer_bytes", "KV-cache bytes pulled from the prefill instance.", double(kvTransferBytes_));
    w.counter("lwb:kv_transfer_seconds", "Time spent pulling KV blocks and writing them into the pool.",
              kvTransferSeconds_);
  }
  if (producer) {
    w.gauge("lwb:kv_transfers_held", "Transfers whose KV blocks this prefill instance holds until pulled.",
            producer->numHeld);
    w.counter("lwb:kv_transfer_dropped_connections", "KV connections dropped: malformed frames, peers gone.",
              double(producer->numDroppedConnections));
  }
  w.histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", promptLen_);
  w.histogram("vllm:request_generation_tokens", "Number of generation tokens processed.", generationLen_);
  w.histogram("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", iterationTokens_);
  w.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", ttft_);
  w.histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itl_);
  w.histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", e2e_);
  w.histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", queue_);
  w.histogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", prefill_);
  w.histogram("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", decode_);
  return w.take();
}

std::string formatStatLine(const TokenCounts& now, const TokenCounts& before, double seconds,
                           const EngineSnapshot& s) {
  const double dt = seconds > 0 ? seconds : 1;
  const double hitRate =
      s.totals.prefixQueryTokens > 0 ? double(s.totals.prefixHitTokens) / double(s.totals.prefixQueryTokens) : 0;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, "
                "Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%",
                double(now.promptTokensComputed - before.promptTokensComputed) / dt,
                double(now.generationTokens - before.generationTokens) / dt, s.numRunning, s.numWaiting,
                kvUsage(s) * 100, hitRate * 100);
  return buf;
}

}  // namespace lwb::server
