#include "engine/bench/goodput.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "engine/common/error.h"

namespace lwb {

namespace {

const char* kMetrics = "ttft, tpot or e2el";

double parseMs(const std::string& item, const std::string& value) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  check(used == value.size() && !value.empty() && std::isfinite(v) && v >= 0,
        "--goodput " + item + ": '" + value + "' is not a number of milliseconds >= 0");
  return v;
}

bool within(const std::optional<double>& seconds, const std::optional<double>& sloMs) {
  return !sloMs || (seconds && *seconds * 1000.0 <= *sloMs);
}

}  // namespace

std::string GoodputSlo::describe() const {
  std::string out;
  char buf[64];
  auto add = [&](const char* name, const std::optional<double>& v) {
    if (!v) return;
    std::snprintf(buf, sizeof buf, "%s%s:%g", out.empty() ? "" : " ", name, *v);
    out += buf;
  };
  add("ttft", ttftMs);
  add("tpot", tpotMs);
  add("e2el", e2elMs);
  return out;
}

GoodputSlo parseGoodput(const std::string& spec) {
  std::string text = spec;
  for (char& c : text)
    if (c == ',') c = ' ';
  std::istringstream in(text);
  GoodputSlo slo;
  std::string item;
  while (in >> item) {
    const size_t colon = item.find(':');
    check(colon != std::string::npos, "--goodput " + item + ": expected KEY:MILLISECONDS with KEY " + kMetrics);
    const std::string key = item.substr(0, colon);
    const double ms = parseMs(item, item.substr(colon + 1));
    if (key == "ttft") slo.ttftMs = ms;
    else if (key == "tpot") slo.tpotMs = ms;
    else if (key == "e2el") slo.e2elMs = ms;
    else throw Error("--goodput " + item + ": unknown metric '" + key + "' (expected " + kMetrics + ")");
  }
  check(!slo.empty(), "--goodput: expected at least one KEY:MILLISECONDS with KEY " + std::string(kMetrics));
  return slo;
}

SloCheck checkSlo(const RequestTimeline& t, const GoodputSlo& slo) {
  return {within(t.ttft(), slo.ttftMs), within(t.tpot(), slo.tpotMs), within(t.e2e(), slo.e2elMs)};
}

bool meetsSlo(const RequestTimeline& t, const GoodputSlo& slo) { return t.completed() && checkSlo(t, slo).all(); }

}  // namespace lwb
