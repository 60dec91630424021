#pragma once
// What /metrics exposes, under vLLM V1's names, labels (model_name, engine) and bucket
// boundaries. Request histograms are fed by finished requests' timelines (their metric
// methods in engine/metrics/records.h are the one definition of TTFT, ITL, ...); gauges
// and the engine's own counters are read from the latest snapshot at scrape time, so
// they are current even while the engine is idle.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "engine/engine_loop.h"
#include "engine/metrics/histogram.h"

namespace lwb::server {

// Token counts since the server started, for the periodic log line.
struct TokenCounts {
  int64_t promptTokensComputed = 0;  // prefill tokens the steps computed
  int64_t generationTokens = 0;
};

// P/D across processes (kv_connector_tcp.h): a kv_producer's state, read at render.
struct KvProducerCounts {
  int numHeld = 0;                    // transfers whose blocks wait for a pull
  int64_t numDroppedConnections = 0;  // malformed frames, consumers gone mid-transfer
};

class ServerMetrics {
 public:
  explicit ServerMetrics(int maxModelLen);

  void observeStep(const StepRecord& step);
  void observeFinished(const RequestTimeline& timeline);

  // Prometheus text exposition format 0.0.4.
  // With a TcpConnector kv_transfer_config, also our KV-transfer counters (lwb:kv_*).
  std::string render(const EngineSnapshot& snapshot, const std::string& modelName,
                     const KvProducerCounts* producer = nullptr) const;
  TokenCounts tokenCounts() const;

 private:
  mutable std::mutex mu_;
  TokenCounts counts_;
  int64_t promptTokens_ = 0;  // whole prompts of requests that produced a first token
  std::map<std::string, int64_t> finishedByReason_;
  int64_t numKvTransfers_ = 0, kvTransferBytes_ = 0;  // pulled by this kv_consumer
  double kvTransferSeconds_ = 0;
  Histogram ttft_, itl_, e2e_, queue_, prefill_, decode_, promptLen_, generationLen_, iterationTokens_;
};

// The line vLLM logs every interval: throughput since the last line, running, waiting,
// KV usage and the prefix-cache hit rate.
std::string formatStatLine(const TokenCounts& now, const TokenCounts& before, double seconds,
                           const EngineSnapshot& snapshot);

// Fraction of KV blocks held by requests (evictable cached blocks count as free).
double kvUsage(const EngineSnapshot& snapshot);

}  // namespace lwb::server
