#pragma once
// The flags `llm-workbench bench --endpoint URL` adds to the local bench's: where the
// server is and how to talk to it. The workload and output flags stay the local bench's
// (parseBenchArgs reads them); engine knobs are refused, since a remote server has the
// knobs it was started with.
#include <string>
#include <vector>

namespace lwb::app {

struct RemoteCliOptions {
  std::string endpoint;         // --endpoint URL
  std::string apiKey;           // --api-key KEY
  std::string servedModelName;  // --served-model-name NAME ("" = the first of /v1/models)
  std::string tokenizerDir;     // --tokenizer DIR ("" = the bundled model's)
  int maxConcurrency = 0;       // --max-concurrency N (0 = one stream per request, capped)
  double readTimeoutSeconds = 60;      // --read-timeout S: silence that makes a stream "stalled"
  double metricsIntervalSeconds = 1;   // --metrics-interval S
};

bool hasEndpointFlag(const std::vector<std::string>& args);
// Removes the remote flags (and their values) from `args`; throws UsageError naming a
// flag with a bad or missing value, or an engine knob left in `args`.
RemoteCliOptions takeRemoteArgs(std::vector<std::string>& args);
std::string remoteBenchUsage();

}  // namespace lwb::app
