#pragma once
// `bench --search`: a grid over knobs, each setting one run of the same seeded workload,
// ranked by request_goodput (then by throughput); the report names the best setting, the
// runner-up and the SLO that the runner-up missed most. A knob given without values gets
// default candidates around the engine's effective value (defaultCandidates).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/bench_options.h"
#include "engine/bench/bench_report.h"
#include "engine/config/engine_config.h"

namespace lwb::app {

using Setting = std::vector<std::pair<std::string, std::string>>;  // knob, value

// Int knobs: the effective value ÷ 4, ÷ 2, × 1, × 2, × 4 within the knob's range (powers
// of two where the knob wants them); Bool: false, true; Choice: every choice. Throws
// UsageError for a knob of another kind (give its values).
std::vector<std::string> defaultCandidates(const std::string& knob, const EngineConfig& effective);
// Every combination of the axes' values, the first axis varying slowest.
std::vector<Setting> searchGrid(const std::vector<SearchAxis>& axes);
// Runs the grid (runOne per setting), prints the table, the best setting and why the
// runner-up lost; --json writes {search, rows, best, runner_up, reason}.
int runSearch(const BenchOptions& o, const EngineConfig& effective,
              const std::function<BenchReport(const BenchOptions&)>& runOne);

}  // namespace lwb::app
