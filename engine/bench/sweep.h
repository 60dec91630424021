#pragma once
// A capacity sweep: one bench run per value of one key (a knob of the table, or the
// workload's request_rate or max_concurrency) with the same seeded workload otherwise.
// One file format for `bench --sweep --json` and the window's Capacity view, which saves,
// reopens and overlays sweeps:
//   {"sweep": {"knob": K, "values": [...]}, "rows": [one bench report per value],
//    "saturation_request_rate": R or null}
// The saturation point is the largest swept request_rate at which at least 90 % of the
// completed requests met every SLO (DistServe's SLO attainment, request_goodput /
// request_throughput); null without SLOs, when no rate reached it, and for other keys.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/bench/bench_report.h"
#include "engine/bench/goodput.h"

namespace lwb {

inline constexpr double kSaturationAttainment = 0.9;

// Milliseconds, as the report's mean_/median_/p90_/p99_<metric>_ms keys.
struct LatencyMs {
  double mean = 0, median = 0, p90 = 0, p99 = 0;
  bool operator==(const LatencyMs&) const = default;
};

// One row of a sweep: what is drawn and compared of its bench report.
struct SweepPoint {
  std::string value;  // as swept, normalised (normalizeSweepValue): "4", "0.5", "inf", "true"
  int completed = 0;
  double duration = 0;  // seconds
  double requestThroughput = 0, outputThroughput = 0;
  std::optional<double> requestGoodput, goodputFraction;  // none without SLOs
  int numGood = 0, numMissedTtft = 0, numMissedTpot = 0, numMissedE2el = 0;
  LatencyMs ttft, tpot, itl, e2el;
  bool operator==(const SweepPoint&) const = default;
};

struct Sweep {
  std::string key;                    // a knob's vLLM name, request_rate or max_concurrency
  std::vector<SweepPoint> points;     // in the order they ran
  std::optional<GoodputSlo> goodput;  // the SLOs every row was judged by
  std::string model, device;          // from the first row's config ("" when absent)
  std::string simHardware;            // a simulated sweep's sim_hardware; "" when measured
  nlohmann::json rows = nlohmann::json::array();  // each point's bench report, saved as it is
  bool simulated() const { return !simHardware.empty(); }
  std::optional<size_t> saturation() const;  // index into points (saturationIndex)
};

// "4" for 4 and 4.0, "0.5", "inf": the text a value is shown and saved with; text that
// is not a finite number stays as it is ("inf", "true", "fcfs").
std::string normalizeSweepValue(const std::string& value);
// A value in the file: a number when it reads as a finite one, else its text.
nlohmann::json sweepValueJson(const std::string& value);
// A request_rate value's rate (inf for "inf"); none when it does not parse.
std::optional<double> sweepRate(const std::string& value);

SweepPoint sweepPoint(const std::string& value, const BenchReport& report);

// Appends a run's point and row; the first row says the SLOs, hardware, model and device.
void addSweepRow(Sweep& sweep, const std::string& value, const BenchReport& report, bool withRequests);

// The row of a report in the file: the bench report's keys (with its per-request records
// only when `withRequests`), plus num_good and num_missed_ttft/_tpot/_e2el with SLOs.
nlohmann::json sweepRowJson(const BenchReport& report, bool withRequests);

// The index of the saturation point among `points` of a sweep of `key`, judged with SLOs
// or not (`haveSlo`): none unless key is request_rate and SLOs were given.
std::optional<size_t> saturationIndex(const std::string& key, const std::vector<SweepPoint>& points, bool haveSlo);

// The file's object from its parts (`rows` as sweepRowJson writes them).
nlohmann::json sweepJson(const std::string& key, const std::vector<std::string>& values, nlohmann::json rows,
                         std::optional<size_t> saturation);
nlohmann::json sweepJson(const Sweep& sweep);
// Reads the file's object (bench --sweep --json too); throws lwb::Error naming the key
// and the row that is missing or of the wrong type.
Sweep sweepFromJson(const nlohmann::json& j);

// What the sweep says in words, from its numbers: the saturation point (or why there is
// none), the SLO that breaks first beyond it and by how much, and the best goodput.
std::string sweepLesson(const Sweep& sweep);
// What A's setting bought against B's, from their numbers: the knobs (and model or
// device) that differ and, for two request_rate sweeps under SLOs, up to which rate each
// kept them ("max_num_batched_tokens 512 (A) instead of 2048 (B): every SLO held up to
// 6 req/s instead of 4"), for other sweeps their best goodput; then p99 TTFT and ITL of
// both at the last value both ran.
std::string sweepComparison(const Sweep& a, const Sweep& b);

}  // namespace lwb
