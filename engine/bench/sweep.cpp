#include "engine/bench/sweep.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "engine/bench/bench_setting.h"
#include "engine/common/error.h"
#include "engine/config/knobs.h"

namespace lwb {

namespace {

using nlohmann::json;

std::optional<double> finiteNumber(const std::string& text) {
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

// Shortest text that reads back as the same double; whole numbers without a fraction.
std::string numberText(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::string valueText(const json& v, const std::string& where) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return numberText(v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  throw Error(where + ": expected a number or a string, found " + v.dump());
}

const json& member(const json& j, const std::string& key, const std::string& where) {
  check(j.is_object() && j.contains(key), where + ": missing \"" + key + "\"");
  return j[key];
}

double number(const json& row, const std::string& key, const std::string& where) {
  const json& v = member(row, key, where);
  check(v.is_number(), where + "." + key + ": expected a number, found " + v.dump());
  return v.get<double>();
}

std::optional<double> numberOrNull(const json& row, const std::string& key, const std::string& where) {
  if (!row.contains(key) || row[key].is_null()) return std::nullopt;
  return number(row, key, where);
}

int count(const json& row, const std::string& key, const std::string& where) {
  return row.contains(key) ? int(number(row, key, where)) : 0;
}

LatencyMs latency(const json& row, const std::string& metric, const std::string& where) {
  return {number(row, "mean_" + metric + "_ms", where), number(row, "median_" + metric + "_ms", where),
          number(row, "p90_" + metric + "_ms", where), number(row, "p99_" + metric + "_ms", where)};
}

LatencyMs latency(const Summary& s) { return {s.mean, s.median, s.p90, s.p99}; }

SweepPoint pointFromJson(const std::string& value, const json& row, const std::string& where) {
  check(row.is_object(), where + ": expected an object (a bench report)");
  SweepPoint p;
  p.value = normalizeSweepValue(value);
  p.completed = int(number(row, "completed", where));
  p.duration = number(row, "duration", where);
  p.requestThroughput = number(row, "request_throughput", where);
  p.outputThroughput = number(row, "output_throughput", where);
  p.requestGoodput = numberOrNull(row, "request_goodput", where);
  p.goodputFraction = numberOrNull(row, "request_goodput_fraction", where);
  p.numGood = count(row, "num_good", where);
  p.numMissedTtft = count(row, "num_missed_ttft", where);
  p.numMissedTpot = count(row, "num_missed_tpot", where);
  p.numMissedE2el = count(row, "num_missed_e2el", where);
  p.ttft = latency(row, "ttft", where);
  p.tpot = latency(row, "tpot", where);
  p.itl = latency(row, "itl", where);
  p.e2el = latency(row, "e2el", where);
  return p;
}

std::string text(const json& j, const std::string& key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// The sweep's description of its rows (the SLOs, the hardware), from one row.
void describeFrom(Sweep& s, const json& row) {
  if (const std::string slo = text(row, "goodput"); !slo.empty()) s.goodput = parseGoodput(slo);
  s.simHardware = text(row, std::string(knob::kSimHardware));  // the report's key is the knob's name
  if (row.contains("config")) {
    s.model = text(row["config"], "model");
    s.device = text(row["config"], "device");
  }
}

std::string format(const char* fmt, auto... args) {
  char buf[400];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

std::string where(const Sweep& s, const SweepPoint& p) {
  return s.key == bench_key::kRequestRate ? "at " + p.value + " req/s" : "at " + s.key + " = " + p.value;
}

// The SLO that `p` missed most: its name ("TTFT") and, in words, "74 % of the completed
// requests missed ttft:500 ms (p99 TTFT 1405.0 ms)"; none when it missed none.
std::optional<std::pair<std::string, std::string>> worstMiss(const Sweep& s, const SweepPoint& p) {
  struct Miss {
    const char* name;
    std::optional<double> slo;
    int count;
    double p99;
  };
  const GoodputSlo& slo = *s.goodput;
  Miss misses[] = {{"ttft", slo.ttftMs, p.numMissedTtft, p.ttft.p99},
                   {"tpot", slo.tpotMs, p.numMissedTpot, p.tpot.p99},
                   {"e2el", slo.e2elMs, p.numMissedE2el, p.e2el.p99}};
  const Miss* worst = nullptr;
  for (const Miss& m : misses)
    if (m.slo && m.count > 0 && (!worst || m.count > worst->count)) worst = &m;
  if (!worst || p.completed == 0) return std::nullopt;
  std::string upper = worst->name;
  for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
  return std::pair{upper, format("%.0f %% of the completed requests missed %s:%g ms (p99 %s %.1f ms)",
                                 100.0 * worst->count / p.completed, worst->name, *worst->slo, upper.c_str(), worst->p99)};
}

bool attains(const SweepPoint& p) {
  return p.completed > 0 && p.goodputFraction && *p.goodputFraction >= kSaturationAttainment;
}

// For a rate sweep: the saturation point, then the first rate above it that fails.
std::string rateLesson(const Sweep& s) {
  const std::string slo = s.goodput->describe();
  const std::optional<size_t> sat = s.saturation();
  std::string out;
  if (sat)
    out = "Saturation: up to " + s.points[*sat].value + " req/s, at least 90 % of the completed requests met every SLO (" +
          slo + ").";
  else
    out = "Saturation: at no swept rate did 90 % of the completed requests meet every SLO (" + slo + ").";
  const double knee = sat ? *sweepRate(s.points[*sat].value) : -1;
  const SweepPoint* firstFail = nullptr;
  for (const SweepPoint& p : s.points) {
    const auto rate = sweepRate(p.value);
    if (rate && *rate > knee && !attains(p) && (!firstFail || *rate < *sweepRate(firstFail->value))) firstFail = &p;
  }
  if (firstFail)
    if (const auto miss = worstMiss(s, *firstFail))
      out += " " + miss->first + " breaks first: " + where(s, *firstFail) + " " + miss->second + ".";
  return out;
}

// For any other key: the settings that failed, each with the SLO it missed most.
std::string settingLesson(const Sweep& s) {
  std::string out;
  for (const SweepPoint& p : s.points)
    if (!attains(p))
      if (const auto miss = worstMiss(s, p)) {
        std::string at = where(s, p);
        at[0] = char(std::toupper(static_cast<unsigned char>(at[0])));
        out += (out.empty() ? "" : " ") + at + ", " + miss->second + ".";
      }
  return out.empty() ? "Every setting kept at least 90 % of the completed requests within the SLOs (" +
                           s.goodput->describe() + ")."
                     : out;
}

}  // namespace

std::string normalizeSweepValue(const std::string& value) {
  const auto x = finiteNumber(value);
  return x ? numberText(*x) : value;
}

json sweepValueJson(const std::string& value) {
  const auto x = finiteNumber(value);
  return x ? json(*x) : json(value);
}

std::optional<double> sweepRate(const std::string& value) {
  BenchSetting s;
  try {
    applySetting(s, std::string(bench_key::kRequestRate), value);
  } catch (const Error&) {
    return std::nullopt;
  }
  return s.workload.requestRate;
}

SweepPoint sweepPoint(const std::string& value, const BenchReport& r) {
  SweepPoint p;
  p.value = normalizeSweepValue(value);
  p.completed = r.completed;
  p.duration = r.duration;
  p.requestThroughput = r.requestThroughput;
  p.outputThroughput = r.outputThroughput;
  if (r.goodput) {
    p.requestGoodput = r.requestGoodput;
    p.goodputFraction = r.requestGoodputFraction;
    p.numGood = r.numGood;
    p.numMissedTtft = r.numMissedTtft;
    p.numMissedTpot = r.numMissedTpot;
    p.numMissedE2el = r.numMissedE2el;
  }
  p.ttft = latency(r.ttftMs);
  p.tpot = latency(r.tpotMs);
  p.itl = latency(r.itlMs);
  p.e2el = latency(r.e2elMs);
  return p;
}

json sweepRowJson(const BenchReport& r, bool withRequests) {
  json j = benchReportJson(r);
  if (!withRequests) j.erase("requests");
  if (r.goodput) {
    j["num_good"] = r.numGood;
    j["num_missed_ttft"] = r.numMissedTtft;
    j["num_missed_tpot"] = r.numMissedTpot;
    j["num_missed_e2el"] = r.numMissedE2el;
  }
  return j;
}

std::optional<size_t> saturationIndex(const std::string& key, const std::vector<SweepPoint>& points, bool haveSlo) {
  if (key != bench_key::kRequestRate || !haveSlo) return std::nullopt;
  std::optional<size_t> best;
  double bestRate = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto rate = sweepRate(points[i].value);  // inf for "inf"
    if (rate && attains(points[i]) && (!best || *rate > bestRate)) {
      best = i;
      bestRate = *rate;
    }
  }
  return best;
}

std::optional<size_t> Sweep::saturation() const { return saturationIndex(key, points, goodput.has_value()); }

json sweepJson(const std::string& key, const std::vector<std::string>& values, json rows,
               std::optional<size_t> saturation) {
  json v = json::array();
  for (const std::string& x : values) v.push_back(sweepValueJson(x));
  return {{"sweep", {{"knob", key}, {"values", v}}},
          {"rows", std::move(rows)},
          {"saturation_request_rate", saturation ? sweepValueJson(values[*saturation]) : json(nullptr)}};
}

json sweepJson(const Sweep& s) {
  check(s.rows.size() == s.points.size(), "sweep: " + std::to_string(s.points.size()) + " points but " +
                                              std::to_string(s.rows.size()) + " rows");
  std::vector<std::string> values;
  for (const SweepPoint& p : s.points) values.push_back(p.value);
  return sweepJson(s.key, values, s.rows, s.saturation());
}

Sweep sweepFromJson(const json& j) {
  const std::string top = "sweep file";
  check(j.is_object() && j.contains("sweep") && j.contains("rows"),
        top + ": expected an object with \"sweep\" and \"rows\" (as `llm-workbench bench --sweep --json` writes)");
  const json& head = j["sweep"];
  const json& knob = member(head, "knob", "sweep");
  check(knob.is_string() && !knob.get<std::string>().empty(), "sweep.knob: expected a key's name, found " + knob.dump());
  const json& values = member(head, "values", "sweep");
  const json& rows = j["rows"];
  check(values.is_array() && rows.is_array() && values.size() == rows.size(),
        "sweep.values and rows: expected two arrays of the same length");
  Sweep s;
  s.key = knob.get<std::string>();
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = "rows[" + std::to_string(i) + "]";
    s.points.push_back(pointFromJson(valueText(values[i], "sweep.values[" + std::to_string(i) + "]"), rows[i], where));
    json row = rows[i];
    row.erase("requests");  // a CLI file's per-request records: not drawn, not kept
    s.rows.push_back(std::move(row));
  }
  if (!rows.empty()) describeFrom(s, rows[0]);
  return s;
}

void addSweepRow(Sweep& s, const std::string& value, const BenchReport& report, bool withRequests) {
  s.points.push_back(sweepPoint(value, report));
  s.rows.push_back(sweepRowJson(report, withRequests));
  if (s.points.size() == 1) describeFrom(s, s.rows.back());
}

std::string sweepLesson(const Sweep& s) {
  if (s.points.empty()) return {};
  std::string out;
  if (!s.goodput) {
    out = "Give SLOs (ttft:MS tpot:MS) to judge the runs by goodput";
    out += s.key == bench_key::kRequestRate ? " and find the saturation point." : ".";
  } else {
    out = s.key == bench_key::kRequestRate ? rateLesson(s) : settingLesson(s);
  }
  const SweepPoint* best = &s.points.front();
  auto score = [&](const SweepPoint& p) { return s.goodput ? p.requestGoodput.value_or(0) : p.requestThroughput; };
  for (const SweepPoint& p : s.points)
    if (score(p) > score(*best)) best = &p;
  out += format(" %s peaks %s: %.2f req/s.", s.goodput ? "Goodput" : "Throughput", where(s, *best).c_str(), score(*best));
  return out;
}

namespace {

std::string plain(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// "max_num_batched_tokens 512 (A) instead of 2048 (B)", one per knob, model or device
// whose value differs between the two sweeps' first rows.
std::string settingDifference(const Sweep& a, const Sweep& b) {
  if (a.rows.empty() || b.rows.empty()) return {};
  const json& ca = a.rows[0].value("config", json::object());
  const json& cb = b.rows[0].value("config", json::object());
  std::vector<std::string> keys = {"model", "device"};
  for (const Knob& k : knobTable()) keys.emplace_back(k.name);
  // A knob left at 0 ("vLLM's default for the device") is compared by the value in force.
  auto valueOf = [](const json& config, const std::string& key) {
    return config.contains("effective_" + key) ? config["effective_" + key] : config[key];
  };
  std::string out;
  for (const std::string& key : keys) {
    if (!ca.contains(key) || !cb.contains(key)) continue;
    const json va = valueOf(ca, key), vb = valueOf(cb, key);
    if (va != vb) out += (out.empty() ? "" : ", ") + key + " " + plain(va) + " (A) instead of " + plain(vb) + " (B)";
  }
  return out;
}

std::string bestGoodput(const Sweep& s) {
  double best = 0;
  for (const SweepPoint& p : s.points) best = std::max(best, p.requestGoodput.value_or(0));
  return format("%.2f", best);
}

// Which setting held the SLOs further, or had the better goodput.
std::string verdict(const Sweep& a, const Sweep& b) {
  std::string out = settingDifference(a, b);
  out = out.empty() ? "A against B: " : out + ": ";
  if (!a.goodput || !b.goodput) return out + "give SLOs to compare them by goodput.";
  if (a.key == bench_key::kRequestRate && b.key == bench_key::kRequestRate) {
    const auto sa = a.saturation(), sb = b.saturation();
    if (!sa && !sb) return out + "neither held every SLO at any swept rate.";
    if (!sb) return out + "every SLO held up to " + a.points[*sa].value + " req/s with A, at no swept rate with B.";
    if (!sa) return out + "every SLO held at no swept rate with A, up to " + b.points[*sb].value + " req/s with B.";
    if (a.points[*sa].value == b.points[*sb].value)
      return out + "both held every SLO up to " + a.points[*sa].value + " req/s; best goodput " + bestGoodput(a) +
             " against " + bestGoodput(b) + " req/s.";
    return out + "every SLO held up to " + a.points[*sa].value + " req/s instead of " + b.points[*sb].value + ".";
  }
  return out + "best goodput " + bestGoodput(a) + " req/s against " + bestGoodput(b) + ".";
}

// " At 256 req/s, p99 TTFT 1834 ms instead of 1405, p99 ITL 55 ms instead of 178.": at the
// last of A's values that B ran too (for a rising sweep, the heaviest load both saw).
std::string latencyAtTop(const Sweep& a, const Sweep& b) {
  if (a.key != b.key) return {};
  const SweepPoint *pa = nullptr, *pb = nullptr;
  for (const SweepPoint& p : a.points)
    for (const SweepPoint& q : b.points)
      if (p.value == q.value) {
        pa = &p;
        pb = &q;
      }
  if (!pa) return {};
  std::string at = where(a, *pa);
  at[0] = char(std::toupper(static_cast<unsigned char>(at[0])));
  return format(" %s, p99 TTFT %.0f ms instead of %.0f, p99 ITL %.0f ms instead of %.0f.", at.c_str(), pa->ttft.p99,
                pb->ttft.p99, pa->itl.p99, pb->itl.p99);
}

}  // namespace

std::string sweepComparison(const Sweep& a, const Sweep& b) {
  if (a.points.empty() || b.points.empty()) return {};
  return verdict(a, b) + latencyAtTop(a, b);
}

}  // namespace lwb
