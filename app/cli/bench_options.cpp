#include "app/cli/bench_options.h"

#include <sstream>
#include <stdexcept>

#include "engine/config/knobs.h"
#include "engine/exec/sim/hardware_profile.h"

namespace lwb::app {
namespace {

// The workload's own options (engine/metrics/workload), documented here because only
// the CLI lists them; --ignore-eos is declared as a switch.
const char* kWorkloadHelp = R"(Workload (vllm bench serve's names):
  --num-prompts N                 number of requests (default 100)
  --request-rate R|inf            Poisson arrival rate in req/s; inf = all at t=0 (default inf)
  --input-len L                   own prompt tokens per request (default 128)
  --range-ratio r                 own length uniform in [L(1-r), L(1+r)], 0 <= r < 1 (default 0)
  --output-len M                  max tokens per request (default 64)
  --shared-prefix-len P           tokens of a shared prefix before each prompt (default 0)
  --num-prefix-groups G           distinct shared prefixes, assigned round-robin (default 1)
  --temperature T                 sampling temperature (default 0 = greedy)
  --seed S                        seed of prompts, arrivals and sampling (default 0)
  --num-background-requests N     extra requests at t=0 that decode steadily while the
                                  workload arrives (default 0); the workload then starts
                                  one inter-arrival gap later
  --background-input-len L        their prompt tokens (default 32)
  --background-output-len M       their output tokens, always exactly M (default 200)
)";

ArgParser makeBenchParser() {
  ArgParser p("bench", "llm-workbench bench [options]",
              "Serving benchmark in the manner of `vllm bench serve`: a synthetic workload (random\n"
              "ordinary-vocabulary prompts, optionally behind shared prefixes) arrives as a Poisson\n"
              "process and is served by the in-process engine; prints TTFT / TPOT / ITL / E2E\n"
              "statistics, throughput, prefix-cache hit rate, preemptions and KV-cache usage.\n"
              "--" + findKnob(knob::kBackend)->flag + " sim runs the same engine on a virtual clock with each step's "
              "time\npredicted for --" + findKnob(knob::kSimHardware)->flag +
                  " (a model folder needs only config.json); presets: " + sim::hardwarePresetList() + ".");
  p.option("model", "DIR", "model folder (default: the bundled austen-chat-11m)");
  p.flag("ignore-eos", "always generate exactly --output-len tokens");
  p.option("json", "FILE", "results as `vllm bench serve --save-result` JSON, plus per-request records");
  p.option("trace", "FILE", "Chrome trace-event JSON (open in ui.perfetto.dev)");
  p.option("csv", "PREFIX", "PREFIX_requests.csv and PREFIX_steps.csv");
  p.flag("quiet", "no progress output");
  p.option("max-concurrency", "N", "at most N requests in flight, as vllm bench serve's flag (default: no limit)");
  p.option("pd", "P:D", "prefill/decode disaggregation: prefill and decode instances, the KV blocks copied\n"
                        "between them (CPU: one of each, P and D threads; sim: P and D simulated devices)");
  p.option("replicas", "N", "sim: N colocated instances of the simulated device, routed least-loaded (the\n"
                            "baseline for --pd on the same number of devices)");
  p.option("sweep", "KEY=V1,V2,...", "one run per value of a knob (vLLM name), request_rate or max_concurrency, with\n"
                                     "the same seeded workload; --json writes every run's report as a row");
  p.option("search", "KNOB[=V1,V2]...", "a grid over knobs (vLLM names; without values, candidates around the engine's\n"
                                       "default) for the highest request_goodput; needs --goodput");
  p.option("goodput", "KEY:MS...", "service-level objectives, vLLM's syntax (ttft:500 tpot:50 e2el:3000, in ms): adds\n"
                                   "request_goodput, the completed requests per second that meet every one");
  p.knobOptions();
  p.extraOptions([](const std::string& name) { return name != "ignore-eos" && isWorkloadOption(name); },
                 kWorkloadHelp);
  return p;
}

std::string nonEmpty(const ArgParser& p, const std::string& name) {
  const std::string v = p.stringOr(name, "");
  if (p.has(name) && v.empty()) throw UsageError("--" + name + ": expected a non-empty value");
  return v;
}

void applyWorkload(const ArgParser& p, WorkloadOptions& w) {
  w.ignoreEos = p.has("ignore-eos");
  for (const auto& [name, value] : p.extras()) {
    try {
      parseWorkloadOption(name, value, &w);
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }
}

}  // namespace

namespace {

// vLLM's --goodput takes several words ("--goodput ttft:500 tpot:50"), and so does
// --search: joined into one value here, so the parser sees one option.
std::vector<std::string> joinGoodputWords(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    out.push_back(args[i]);
    if (args[i] != "--goodput" && args[i] != "--search") continue;
    const bool goodput = args[i] == "--goodput";
    std::string value;
    while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0 &&
           (!goodput || args[i + 1].find(':') != std::string::npos))
      value += (value.empty() ? "" : " ") + args[++i];
    if (!value.empty()) out.push_back(value);
  }
  return out;
}

// Sets `key` to `value` in `o`; throws UsageError naming both and the expected range.
void applySweepValue(BenchOptions& o, const std::string& key, const std::string& value) {
  BenchSetting s = benchSetting(o);
  try {
    applySetting(s, key, value);
  } catch (const Error& e) {
    throw UsageError("--sweep " + key + "=" + value + ": " + e.what());
  }
  o.workload = s.workload;
  o.engine = s.engine;
  o.maxConcurrency = s.maxConcurrency;
}

// "max_num_batched_tokens=512,1024 max_num_seqs" or "max_num_batched_tokens,max_num_seqs".
std::vector<SearchAxis> parseSearch(const std::string& spec) {
  std::vector<SearchAxis> axes;
  std::istringstream in(spec);
  std::string item;
  while (in >> item) {
    const size_t eq = item.find('=');
    std::vector<std::string> names, values;
    std::istringstream parts(eq == std::string::npos ? item : item.substr(eq + 1));
    for (std::string part; std::getline(parts, part, ',');) (eq == std::string::npos ? names : values).push_back(part);
    if (eq != std::string::npos) names = {item.substr(0, eq)};
    for (const std::string& n : names) {
      if (!findKnob(n)) throw UsageError("--search " + n + ": not a knob (see --help for their vLLM names)");
      axes.push_back({n, values});
    }
  }
  if (axes.empty()) throw UsageError("--search: expected KNOB[=V1,V2,...] ... (knobs by their vLLM names)");
  return axes;
}

BenchSweep parseSweep(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw UsageError("--sweep " + spec + ": expected KEY=V1,V2,... (a knob's vLLM name, request_rate or max_concurrency)");
  BenchSweep s;
  s.key = spec.substr(0, eq);
  if (!isSettingKey(s.key))
    throw UsageError("--sweep " + s.key + ": not a knob (see --help for their vLLM names), request_rate or max_concurrency");
  std::string rest = spec.substr(eq + 1);
  size_t start = 0;
  while (start <= rest.size()) {
    const size_t comma = rest.find(',', start);
    const std::string v = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (v.empty()) throw UsageError("--sweep " + spec + ": an empty value");
    s.values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return s;
}

}  // namespace

bool BenchSweep::sweepsKnob() const { return isKnobKey(key); }

bool BenchSweep::sweepsRequestRate() const { return key == bench_key::kRequestRate; }

BenchSetting benchSetting(const BenchOptions& o) { return {o.workload, o.engine, o.maxConcurrency, o.goodput}; }

BenchOptions withSetting(const BenchOptions& o, const std::string& key, const std::string& value) {
  BenchOptions run = o;
  applySweepValue(run, key, value);
  return run;
}

BenchOptions sweepRunOptions(const BenchOptions& o, const std::string& value) {
  return withSetting(o, o.sweep->key, value);
}

PdSplit parsePdSplit(const std::string& text, const std::string& backend) {
  const size_t colon = text.find(':');
  PdSplit split;
  try {
    size_t used = 0;
    if (colon == std::string::npos) throw std::invalid_argument(text);
    split.prefill = std::stoi(text.substr(0, colon), &used);
    if (used != colon) throw std::invalid_argument(text);
    split.decode = std::stoi(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    throw UsageError("--pd " + text + ": expected P:D, two positive counts (e.g. 1:1)");
  }
  if (split.prefill < 1 || split.decode < 1 || split.prefill > 4096 || split.decode > 4096)
    throw UsageError("--pd " + text + ": expected P:D, each 1..4096");
  if (backend == "sim" && (split.prefill > 64 || split.decode > 64))
    throw UsageError("--pd " + text + ": the sim backend runs at most 64 prefill and 64 decode devices");
  return split;
}

BenchOptions parseBenchArgs(const std::vector<std::string>& args) {
  ArgParser p = makeBenchParser();
  p.parseOnly(joinGoodputWords(args));
  BenchOptions o;
  o.help = p.has("help");
  if (o.help) return o;  // help wins over bad values
  o.modelDir = nonEmpty(p, "model");
  o.jsonPath = nonEmpty(p, "json");
  o.tracePath = nonEmpty(p, "trace");
  o.csvPrefix = nonEmpty(p, "csv");
  o.quiet = p.has("quiet");
  if (p.has("goodput")) {
    try {
      o.goodput = parseGoodput(p.stringOr("goodput", ""));
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }
  o.maxConcurrency = int(p.integer("max-concurrency", 0, 1, 1 << 20));
  p.applyKnobs(o.engine);
  if (p.has("pd")) o.pd = parsePdSplit(p.stringOr("pd", ""), o.engine.executor.backend);
  if (p.has("replicas")) {
    o.replicas = int(p.integer("replicas", 1, 1, 64));
    if (o.engine.executor.backend != "sim")
      throw UsageError("--replicas " + std::to_string(o.replicas) + ": colocated replicas run on --" +
                       findKnob(knob::kBackend)->flag + " sim only");
    if (o.pd) throw UsageError("--replicas and --pd: give one of them (colocated replicas, or a P/D deployment)");
  }
  if (o.engine.kvTransfer.enabled() && !o.pd)
    throw UsageError("--" + findKnob(knob::kKvTransferConfig)->flag +
                     " sets the connector of a prefill/decode pair: give --pd P:D too");
  if (o.engine.kvTransfer.tcp())
    throw UsageError("--" + findKnob(knob::kKvTransferConfig)->flag +
                     ": TcpConnector joins two serve processes (docs/pd.md); bench --pd takes PdInProcessConnector");
  applyWorkload(p, o.workload);
  try {
    o.workload.validate();
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  if (p.has("sweep")) {
    if (!o.tracePath.empty() || !o.csvPrefix.empty())
      throw UsageError("--trace and --csv write one run's records; with --sweep, --json writes every run's report");
    o.sweep = parseSweep(p.stringOr("sweep", ""));
    for (const std::string& v : o.sweep->values) sweepRunOptions(o, v);  // every value checked before any run
  }
  if (p.has("search")) {
    if (o.sweep) throw UsageError("--search and --sweep: give one of them");
    if (!o.goodput) throw UsageError("--search ranks settings by request_goodput: give --goodput ttft:MS tpot:MS ...");
    if (!o.tracePath.empty() || !o.csvPrefix.empty())
      throw UsageError("--trace and --csv write one run's records; with --search, --json writes every run's report");
    o.search = parseSearch(p.stringOr("search", ""));
    for (const SearchAxis& a : o.search)
      for (const std::string& v : a.values) withSetting(o, a.knob, v);  // every value checked before any run
  }
  return o;
}

std::string benchUsage() { return makeBenchParser().helpText(); }

}  // namespace lwb::app
