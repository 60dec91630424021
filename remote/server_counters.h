#pragma once
// What happened between two scrapes of a remote server's /metrics: its counters only
// grow, so the batch and prefix views plot their differences per interval — the mean
// tokens per engine step, the prefix-cache hit rate of the prompts admitted in the
// interval, the preemptions. A server that does not export a counter gets nullopt (the
// views then say so instead of drawing zeros); a counter that went backwards means the
// server restarted, and the next interval starts from the new values.
#include <optional>
#include <string>

#include "remote/remote_metrics.h"

namespace lwb::remote {

struct CounterDeltas {
  double time = 0;  // the later scrape's
  double seconds = 0;  // the interval's length
  // Mean tokens per engine step in the interval (vLLM: vllm:iteration_tokens_total's
  // sum / count; llama.cpp: prompt + generated tokens per llama_decode() call);
  // nullopt when the server exports neither, or ran no step in the interval.
  std::optional<double> tokensPerIteration;
  std::optional<double> numIterations;
  // Hit tokens / queried tokens of the interval ([0, 1]); nullopt without queries in it.
  // SGLang without the counters: its own cache_hit_rate gauge.
  std::optional<double> prefixHitRate;
  std::optional<double> prefixHitRateCumulative;  // since the server started
  std::optional<double> numPreemptions;           // in the interval
};

// Which of the views' figures this server's /metrics carries at all.
struct CounterExports {
  bool tokensPerIteration = false;
  bool prefixHitRate = false;
  bool preemptions = false;
};
CounterExports counterExports(const RemoteServerState& s);

// "vLLM", "SGLang", "llama.cpp", "This server" (kind Unknown): as a sentence starts.
std::string serverDisplayName(ServerKind kind);

class CounterDeltaTracker {
 public:
  // The first state only sets the baseline (nullopt); so does one after a restart.
  std::optional<CounterDeltas> add(double time, const RemoteServerState& s);
  void reset() { last_.reset(); }

 private:
  std::optional<RemoteServerState> last_;
  double lastTime_ = 0;
};

}  // namespace lwb::remote
