#pragma once
// The result of one serving benchmark run, in `vllm bench serve`'s terms: the text
// summary it prints and the JSON it saves (same keys: completed, duration,
// request_throughput, mean_/median_/std_/p90_/p99_ttft_ms, ..._tpot_ms, ..._itl_ms,
// ..._e2el_ms), plus the engine-side metrics vLLM only exposes through Prometheus.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/bench/goodput.h"
#include "engine/metrics/records.h"
#include "engine/metrics/stats.h"

namespace lwb {

struct BenchRequestRecord {
  RequestTimeline timeline;         // arrival = the scheduled arrival of the request
  std::vector<int> outputTokenIds;
};

struct BenchReport {
  int numRequests = 0;
  int completed = 0;                // finished with stop or length
  int numFailed = 0;                // rejected, aborted or failed
  double duration = 0;              // seconds: first arrival to last finish
  int64_t totalInputTokens = 0;     // of completed requests
  int64_t totalOutputTokens = 0;
  double requestThroughput = 0, outputThroughput = 0, totalTokenThroughput = 0;
  Summary ttftMs, tpotMs, itlMs, e2elMs;  // over completed requests; ITL over all gaps
  int64_t prefixQueryTokens = 0, prefixHitTokens = 0;
  double prefixCacheHitRate = 0;    // hits / queried prompt tokens; 0 when nothing queried
  // Prompt tokens that missed the prefix cache, by reason (prefix_miss.h), summed over steps.
  std::array<int64_t, kNumPrefixMissReasons> prefixMissTokens{};
  int64_t numPreemptions = 0;
  double maxKvCacheUsage = 0;       // [0, 1]
  int64_t numSteps = 0;
  SpecDecodeCounts specDecode;      // speculative decoding, summed over all requests
  // --goodput (goodput.h): the SLOs, the completed requests that met them all, and
  // request_goodput / request_goodput_fraction.
  std::optional<GoodputSlo> goodput;
  int numGood = 0;
  double requestGoodput = 0, requestGoodputFraction = 0;
  int numMissedTtft = 0, numMissedTpot = 0, numMissedE2el = 0;  // completed requests over each SLO
  nlohmann::json config = nlohmann::json::object();  // knobs and workload, vLLM names
  std::vector<BenchRequestRecord> requests;          // in submission order
  // A run on the sim backend: the simulated hardware (sim_hardware as given) and what it
  // was ("NVIDIA H100 SXM5 80GB x8 (simulated)"); every time in the report is predicted.
  std::string simHardware, simulatedDevice;
  bool simulated() const { return !simHardware.empty(); }
};

// `duration` in seconds; 0 leaves the throughputs 0.
BenchReport makeBenchReport(std::vector<BenchRequestRecord> requests, const std::vector<StepRecord>& steps,
                            double duration);
// Counts the requests that meet `slo` and sets the goodput figures.
void applyGoodput(BenchReport& report, const GoodputSlo& slo);
// Adds one step to the engine-side totals (for step histories kept in other containers).
void addStep(BenchReport& report, const StepRecord& step);

// The "============ Serving Benchmark Result ============" block.
std::string formatBenchSummary(const BenchReport& report);
// The summary keys, "config" (knobs and workload) and "requests" (one object per
// request in submission order: arrival_time (s from the run's start), prompt_len,
// output_len, ttft_ms, e2el_ms, itl_ms, output_token_ids, ...).
nlohmann::json benchReportJson(const BenchReport& report);

}  // namespace lwb
