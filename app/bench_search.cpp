#include "app/bench_search.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "app/cli/args.h"
#include "engine/config/knobs.h"
#include "engine/metrics/export.h"

namespace lwb::app {

namespace {

using json = nlohmann::json;

std::string describe(const Setting& s) {
  std::string out;
  for (const auto& [knob, value] : s) out += (out.empty() ? "" : " ") + knob + "=" + value;
  return out;
}

json settingJson(const Setting& s) {
  json j = json::object();
  for (const auto& [knob, value] : s) j[knob] = value;
  return j;
}

bool ranksAbove(const BenchReport& a, const BenchReport& b) {
  if (a.requestGoodput != b.requestGoodput) return a.requestGoodput > b.requestGoodput;
  return a.requestThroughput > b.requestThroughput;
}

// Why `loser` ranked below `winner`: its goodput and the SLO it missed most often.
std::string lossReason(const BenchReport& winner, const BenchReport& loser) {
  if (loser.requestGoodput == winner.requestGoodput && loser.requestThroughput == winner.requestThroughput)
    return "a tie: the same goodput and throughput, so the values that differ did not bind at this load; the "
           "grid's order decided";
  const GoodputSlo& slo = *loser.goodput;
  struct Miss {
    const char* name;
    std::optional<double> ms;
    int count;
  };
  std::vector<Miss> misses = {{"ttft", slo.ttftMs, loser.numMissedTtft},
                              {"tpot", slo.tpotMs, loser.numMissedTpot},
                              {"e2el", slo.e2elMs, loser.numMissedE2el}};
  std::stable_sort(misses.begin(), misses.end(), [](const Miss& a, const Miss& b) { return a.count > b.count; });
  char buf[320];
  std::snprintf(buf, sizeof buf, "request_goodput %.2f vs %.2f req/s", loser.requestGoodput, winner.requestGoodput);
  std::string out = buf;
  const Miss& worst = misses.front();
  if (worst.ms && worst.count > 0 && loser.completed > 0) {
    std::snprintf(buf, sizeof buf, "; %.0f %% of its completed requests missed %s:%g ms", 100.0 * worst.count / loser.completed,
                  worst.name, *worst.ms);
    out += buf;
  } else {
    std::snprintf(buf, sizeof buf, "every request met the SLOs; it served them more slowly: %.2f vs %.2f req/s",
                  loser.requestThroughput, winner.requestThroughput);
    out = buf;
  }
  return out;
}

}  // namespace

std::vector<std::string> defaultCandidates(const std::string& name, const EngineConfig& effective) {
  const Knob* k = findKnob(name);
  if (k->kind == KnobKind::Bool) return {"false", "true"};
  if (k->kind == KnobKind::Choice) return {k->choices.begin(), k->choices.end()};
  if (k->kind != KnobKind::Int)
    throw UsageError("--search " + name + ": give its values (" + name + "=V1,V2,...): no default candidates for it");
  const int64_t v = std::max<int64_t>(1, std::get<int64_t>(k->get(effective)));
  std::set<int64_t> values;
  for (int64_t c : {v / 4, v / 2, v, v * 2, v * 4}) {
    c = std::clamp<int64_t>(c, std::max<int64_t>(k->min, 1), k->max);
    try {
      k->check(KnobValue(c));
      values.insert(c);
    } catch (const Error&) {
    }
  }
  std::vector<std::string> out;
  for (int64_t c : values) out.push_back(std::to_string(c));
  return out;
}

std::vector<Setting> searchGrid(const std::vector<SearchAxis>& axes) {
  std::vector<Setting> grid = {{}};
  for (const SearchAxis& a : axes) {
    std::vector<Setting> next;
    for (const Setting& s : grid)
      for (const std::string& v : a.values) {
        Setting t = s;
        t.emplace_back(a.knob, v);
        next.push_back(t);
      }
    grid = std::move(next);
  }
  return grid;
}

int runSearch(const BenchOptions& o, const EngineConfig& effective,
              const std::function<BenchReport(const BenchOptions&)>& runOne) {
  std::vector<SearchAxis> axes = o.search;
  for (SearchAxis& a : axes)
    if (a.values.empty()) a.values = defaultCandidates(a.knob, effective);
  const std::vector<Setting> grid = searchGrid(axes);
  std::vector<BenchOptions> runs;
  for (const Setting& s : grid) {  // every setting checked (default candidates too) before any run
    BenchOptions run = o;
    for (const auto& [knob, value] : s) run = withSetting(run, knob, value);
    runs.push_back(run);
  }
  std::vector<BenchReport> reports;
  json rows = json::array();
  for (size_t i = 0; i < grid.size(); ++i) {
    if (!o.quiet) std::fprintf(stderr, "bench: search %zu/%zu: %s\n", i + 1, grid.size(), describe(grid[i]).c_str());
    BenchReport r = runOne(runs[i]);
    json row = benchReportJson(r);
    row["setting"] = settingJson(grid[i]);
    rows.push_back(row);
    r.requests.clear();
    reports.push_back(std::move(r));
  }
  std::vector<size_t> order(grid.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ranksAbove(reports[a], reports[b]); });

  std::printf("============ Search for the highest goodput (%s) ============\n", o.goodput->describe().c_str());
  std::printf("%-44s %9s %9s %8s %12s %11s\n", "setting", "goodput", "req/s", "in SLO", "p99 TTFT ms", "p99 ITL ms");
  for (size_t i : order)
    std::printf("%-44s %9.2f %9.2f %7.0f%% %12.1f %11.1f\n", describe(grid[i]).c_str(), reports[i].requestGoodput,
                reports[i].requestThroughput, 100.0 * reports[i].requestGoodputFraction, reports[i].ttftMs.p99,
                reports[i].itlMs.p99);
  const size_t best = order.front();
  std::printf("Best: %s, %.2f good requests/s.\n", describe(grid[best]).c_str(), reports[best].requestGoodput);
  json runnerUp = nullptr, reason = nullptr;
  if (order.size() > 1) {
    const size_t second = order[1];
    reason = lossReason(reports[best], reports[second]);
    runnerUp = {{"setting", settingJson(grid[second])}, {"request_goodput", reports[second].requestGoodput}};
    std::printf("Runner-up: %s (%s).\n", describe(grid[second]).c_str(), reason.get<std::string>().c_str());
  }
  std::fflush(stdout);
  if (!o.jsonPath.empty()) {
    json knobs = json::array();
    for (const SearchAxis& a : axes) knobs.push_back({{"knob", a.knob}, {"values", a.values}});
    const json j = {{"search", {{"knobs", knobs}, {"method", "grid"}, {"goodput", o.goodput->describe()}}},
                    {"rows", rows},
                    {"best", {{"setting", settingJson(grid[best])}, {"request_goodput", reports[best].requestGoodput}}},
                    {"runner_up", runnerUp},
                    {"reason", reason}};
    writeTextFile(o.jsonPath, j.dump(2) + "\n");
  }
  return 0;
}

}  // namespace lwb::app
