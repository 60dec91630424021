#pragma once
// Goodput as `vllm bench serve --goodput` defines it: a request is good when it completed
// and meets every service-level objective given (TTFT, TPOT, end-to-end latency, each in
// milliseconds, met when the request's value is at most the SLO; a one-token request's
// TPOT is 0). request_goodput = good requests / duration; request_goodput_fraction (ours)
// = good / completed requests, DistServe's SLO attainment.
#include <optional>
#include <string>

#include "engine/sched/request_timeline.h"

namespace lwb {

struct GoodputSlo {
  std::optional<double> ttftMs, tpotMs, e2elMs;
  bool empty() const { return !ttftMs && !tpotMs && !e2elMs; }
  std::string describe() const;  // "ttft:500 tpot:50", as given to --goodput
};

// vLLM's syntax: KEY:VALUE items separated by spaces (or commas), KEY one of ttft, tpot,
// e2el and VALUE milliseconds >= 0. Throws lwb::Error naming the item and what was expected.
GoodputSlo parseGoodput(const std::string& spec);

// Which SLOs a request meets (an SLO that is not set is met).
struct SloCheck {
  bool ttft = true, tpot = true, e2el = true;
  bool all() const { return ttft && tpot && e2el; }
};
SloCheck checkSlo(const RequestTimeline& t, const GoodputSlo& slo);
// Whether a request counts toward goodput: it completed (stop or length) and meets every
// SLO that is set.
bool meetsSlo(const RequestTimeline& t, const GoodputSlo& slo);

}  // namespace lwb
