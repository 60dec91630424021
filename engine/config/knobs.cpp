#include "engine/config/knobs.h"

#include <charconv>
#include <cmath>

#include "engine/common/error.h"
#include "engine/common/translate.h"
#include "engine/config/engine_config.h"
#include "engine/config/speculative_config.h"

namespace lwb {

namespace {

// Accessors are captureless lambdas, so the table stays a plain list of data.
std::vector<Knob> makeTable() {
  std::vector<Knob> t;
  Knob k{};
  // ---- live: the next step uses them ----
  k = {knob::kMaxNumBatchedTokens, KnobKind::Int, KnobApply::Live, "tokens",
       LWB_TRANSLATE_NOOP("Knobs", "Token budget of one step (prefill chunks + decode tokens): smaller gives "
                                   "smoother ITL, larger gives faster TTFT but decodes wait behind big prefill steps"),
       LWB_TRANSLATE_NOOP("Knobs", "default"),
       LWB_TRANSLATE_NOOP("Knobs", "vLLM's default for the device: 2048 on CPU, 2048 or 8192 on a GPU"), 0, 1 << 20};
  k.get = [](const EngineConfig& c) -> KnobValue { return int64_t(c.maxNumBatchedTokens); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.maxNumBatchedTokens = int(std::get<int64_t>(v)); };
  t.push_back(k);
  k = {knob::kMaxNumSeqs, KnobKind::Int, KnobApply::Live, "requests",
       LWB_TRANSLATE_NOOP("Knobs", "Most requests in one step: more gives higher throughput (decode is memory-bound) "
                                   "but more KV memory in use and more preemption"),
       LWB_TRANSLATE_NOOP("Knobs", "default"),
       LWB_TRANSLATE_NOOP("Knobs", "vLLM's default for the device: 128 on CPU, 256 or 1024 on a GPU"), 0, 1 << 16};
  k.get = [](const EngineConfig& c) -> KnobValue { return int64_t(c.maxNumSeqs); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.maxNumSeqs = int(std::get<int64_t>(v)); };
  t.push_back(k);
  k = {knob::kEnableChunkedPrefill, KnobKind::Bool, KnobApply::Live, "",
       LWB_TRANSLATE_NOOP("Knobs", "Cut long prompts into chunks that ride along with decodes, so a long prompt "
                                   "never stalls generation; off: a prompt must fit the budget whole")};
  k.get = [](const EngineConfig& c) -> KnobValue { return c.enableChunkedPrefill; };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.enableChunkedPrefill = std::get<bool>(v); };
  t.push_back(k);
  k = {knob::kEnablePrefixCaching, KnobKind::Bool, KnobApply::Live, "",
       LWB_TRANSLATE_NOOP("Knobs", "Reuse KV blocks of identical prompt prefixes (system prompts, shared documents): "
                                   "saves prefill compute and TTFT, costs nothing without reuse")};
  k.get = [](const EngineConfig& c) -> KnobValue { return c.enablePrefixCaching; };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.enablePrefixCaching = std::get<bool>(v); };
  t.push_back(k);
  k = {knob::kLongPrefillTokenThreshold, KnobKind::Int, KnobApply::Live, "tokens",
       LWB_TRANSLATE_NOOP("Knobs", "A prompt longer than this gets at most this many tokens per step, so long "
                                   "prompts cannot starve short ones"),
       LWB_TRANSLATE_NOOP("Knobs", "off"),
       LWB_TRANSLATE_NOOP("Knobs", "off"), 0, 1 << 20};
  k.get = [](const EngineConfig& c) -> KnobValue { return int64_t(c.longPrefillTokenThreshold); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.longPrefillTokenThreshold = int(std::get<int64_t>(v)); };
  t.push_back(k);
  k = {knob::kSchedulingPolicy, KnobKind::Choice, KnobApply::Live, "",
       LWB_TRANSLATE_NOOP("Knobs", "fcfs: first come, first served, preemption takes the newest request; priority: "
                                   "lower value first, preemption takes the lowest priority")};
  k.choices = {"fcfs", "priority"};
  k.get = [](const EngineConfig& c) -> KnobValue { return schedulingPolicyName(c.schedulingPolicy); };
  k.set = [](EngineConfig& c, const KnobValue& v) {
    lwb::check(parseSchedulingPolicy(std::get<std::string>(v), &c.schedulingPolicy),
               std::string(knob::kSchedulingPolicy) + ": expected one of fcfs, priority, found '" +
                   std::get<std::string>(v) + "'");
  };
  t.push_back(k);
  k = {knob::kMaxModelLen, KnobKind::Int, KnobApply::Live, "tokens",
       LWB_TRANSLATE_NOOP("Knobs", "Longest prompt + output accepted; longer requests are rejected, and a shorter "
                                   "limit needs less KV memory"),
       LWB_TRANSLATE_NOOP("Knobs", "model max"),
       LWB_TRANSLATE_NOOP("Knobs", "the model's max_position_embeddings"), 0, 1 << 24};
  k.get = [](const EngineConfig& c) -> KnobValue { return int64_t(c.maxModelLen); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.maxModelLen = int(std::get<int64_t>(v)); };
  t.push_back(k);
  k = {knob::kSchedulerReserveFullIsl, KnobKind::Bool, KnobApply::Live, "",
       LWB_TRANSLATE_NOOP("Knobs", "Admit a request only if KV blocks for its whole prompt are free now: fewer "
                                   "admissions under memory pressure, but no admit-then-preempt thrashing")};
  k.get = [](const EngineConfig& c) -> KnobValue { return c.schedulerReserveFullIsl; };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.schedulerReserveFullIsl = std::get<bool>(v); };
  t.push_back(k);
  // Live, but a draft model switch is structural.
  k = {knob::kSpeculativeConfig, KnobKind::Json, KnobApply::Live, "",
       LWB_TRANSLATE_NOOP("Knobs", "Speculative decoding: a proposer guesses num_speculative_tokens tokens, one "
                                   "target pass verifies them; faster decode for a few requests when drafts are "
                                   "accepted, lost throughput for a full batch")};
  k.get = [](const EngineConfig& c) -> KnobValue { return c.speculative.toJson(); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.speculative = parseSpeculativeConfig(std::get<std::string>(v)); };
  // A draft model has its own weights and KV pool; n-gram settings are live.
  k.structuralWhen = [](const EngineConfig& a, const EngineConfig& b) {
    return draftModelDiffers(a.speculative, b.speculative);
  };
  k.whenStructural = LWB_TRANSLATE_NOOP("Knobs", "a draft model switch, or its num_speculative_tokens");
  t.push_back(k);
  // ---- structural: the KV pool is rebuilt ----
  k = {knob::kBlockSize, KnobKind::Int, KnobApply::RebuildKv, "tokens",
       LWB_TRANSLATE_NOOP("Knobs", "Tokens per KV block: smaller wastes less memory in each request's last block and "
                                   "shares prefixes finer; larger means fewer blocks to manage"),
       "", "", 1, 256, true};
  k.get = [](const EngineConfig& c) -> KnobValue { return int64_t(c.blockSize); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.blockSize = int(std::get<int64_t>(v)); };
  t.push_back(k);
  k = {knob::kKvCacheMemoryBytes, KnobKind::Int, KnobApply::RebuildKv, "bytes",
       LWB_TRANSLATE_NOOP("Knobs", "Memory for the KV cache: it bounds the context all running requests hold "
                                   "together; too little means preemptions under load"),
       LWB_TRANSLATE_NOOP("Knobs", "auto"),
       LWB_TRANSLATE_NOOP("Knobs", "the backend's default budget"), 0, int64_t(1) << 50};
  k.get = [](const EngineConfig& c) -> KnobValue { return c.kvCacheMemoryBytes; };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.kvCacheMemoryBytes = std::get<int64_t>(v); };
  t.push_back(k);
  k = {knob::kNumGpuBlocksOverride, KnobKind::Int, KnobApply::RebuildKv, "blocks",
       LWB_TRANSLATE_NOOP("Knobs", "Force the number of KV blocks (overrides the memory budget): a small cache "
                                   "provokes preemption you can watch in the KV map"),
       LWB_TRANSLATE_NOOP("Knobs", "unset"),
       LWB_TRANSLATE_NOOP("Knobs", "from the memory budget"), 0, 1 << 24};
  k.get = [](const EngineConfig& c) -> KnobValue { return int64_t(c.numGpuBlocksOverride); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.numGpuBlocksOverride = int(std::get<int64_t>(v)); };
  t.push_back(k);
  // ---- structural: a new executor ----
  k = {knob::kBackend, KnobKind::Choice, KnobApply::RebuildExecutor, "",
       LWB_TRANSLATE_NOOP("Knobs", "Where the forward pass runs: auto = CUDA when a device is present, else CPU; sim "
                                   "= no weights run: the real scheduler and KV cache on a virtual clock, each "
                                   "step's time predicted for sim_hardware")};
  k.choices = {"auto", "cpu", "cuda", "sim"};
  k.get = [](const EngineConfig& c) -> KnobValue { return c.executor.backend; };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.executor.backend = std::get<std::string>(v); };
  t.push_back(k);
  k = {knob::kThreads, KnobKind::Int, KnobApply::RebuildExecutor, "threads",
       LWB_TRANSLATE_NOOP("Knobs", "CPU backend: worker threads of the forward pass; more than the physical cores "
                                   "rarely helps"),
       LWB_TRANSLATE_NOOP("Knobs", "all cores"),
       LWB_TRANSLATE_NOOP("Knobs", "all cores"), 0, 4096};
  k.get = [](const EngineConfig& c) -> KnobValue { return int64_t(c.executor.numThreads); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.executor.numThreads = int(std::get<int64_t>(v)); };
  t.push_back(k);
  k = {knob::kGpuMemoryUtilization, KnobKind::Real, KnobApply::RebuildExecutor, "",
       LWB_TRANSLATE_NOOP("Knobs", "CUDA backend: share of the device memory the engine may use; the KV cache gets "
                                   "what weights and activations leave")};
  k.realMin = 0;
  k.realMax = 1;
  k.get = [](const EngineConfig& c) -> KnobValue { return c.executor.gpuMemoryUtilization; };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.executor.gpuMemoryUtilization = std::get<double>(v); };
  t.push_back(k);
  k = {knob::kQuantization, KnobKind::Choice, KnobApply::RebuildExecutor, "",
       LWB_TRANSLATE_NOOP("Knobs", "Quantize the weights at load (CPU backend): q8_0 about halves and q4_k about "
                                   "quarters the weight memory that every decode step reads, at some accuracy")};
  k.choices = {"none", "q8_0", "q4_k"};
  k.get = [](const EngineConfig& c) -> KnobValue {
    return c.executor.quantization.empty() ? std::string("none") : c.executor.quantization;
  };
  k.set = [](EngineConfig& c, const KnobValue& v) {  // "" (saved runs before the table) = none
    const std::string& s = std::get<std::string>(v);
    c.executor.quantization = s == "none" ? std::string() : s;
  };
  t.push_back(k);
  // A new executor because the KV pool's element type is the executor's: it rebuilds the
  // pool with it, at the new bytes per block.
  k = {knob::kKvCacheDtype, KnobKind::Choice, KnobApply::RebuildExecutor, "",
       LWB_TRANSLATE_NOOP("Knobs", "Element type of the KV cache: bfloat16 halves the bytes per KV block, so the "
                                   "same memory holds 2x the blocks (fewer preemptions) and decode attention reads "
                                   "half the bytes, at a small accuracy cost (K/V rounded to 8 mantissa bits). fp8 "
                                   "(= fp8_e4m3: 3 mantissa bits, values up to 448) and fp8_e5m2 (2 mantissa bits, "
                                   "up to 57344) quarter them, at a larger cost; as in vLLM without calibration the "
                                   "scale is 1, so larger K/V values saturate. CPU backend only. auto: on the CPU "
                                   "backend float32 for float weights (its attention math is f32 and the golden "
                                   "outputs stay bit-identical; vLLM's auto follows the model dtype) and bfloat16 "
                                   "for quantized ones (they have no float dtype to follow; llama.cpp keeps its "
                                   "cache in 16 bits), the model's activation dtype on CUDA")};
  k.choices = {"auto", "float32", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2"};
  k.get = [](const EngineConfig& c) -> KnobValue { return c.executor.kvCacheDtype; };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.executor.kvCacheDtype = std::get<std::string>(v); };
  t.push_back(k);
  k = {knob::kSimHardware, KnobKind::Text, KnobApply::RebuildExecutor, "",
       LWB_TRANSLATE_NOOP("Knobs", "Sim backend: the simulated device, a hardware preset (h100-sxm, a100-80gb, ...) "
                                   "or the path of a profile file that `llm-workbench calibrate` wrote; sets the "
                                   "memory the KV pool is sized from and every step's predicted time")};
  k.get = [](const EngineConfig& c) -> KnobValue { return c.executor.simHardware; };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.executor.simHardware = std::get<std::string>(v); };
  t.push_back(k);
  k = {knob::kTensorParallelSize, KnobKind::Int, KnobApply::RebuildExecutor, "ranks",
       LWB_TRANSLATE_NOOP("Knobs", "Sim backend: devices one model is sharded over; each holds 1/N of the weights "
                                   "and KV heads (more blocks, faster steps) and pays two all-reduces per layer"),
       "", "", 1, 64};
  k.get = [](const EngineConfig& c) -> KnobValue { return int64_t(c.executor.tensorParallelSize); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.executor.tensorParallelSize = int(std::get<int64_t>(v)); };
  t.push_back(k);
  k = {knob::kKvTransferConfig, KnobKind::Json, KnobApply::RebuildExecutor, "",
       LWB_TRANSLATE_NOOP("Knobs", "Prefill/decode disaggregation: the connector that copies each prefilled "
                                    "request's KV blocks from the prefill instance to the decode instance. bench --pd "
                                    "P:D: PdInProcessConnector and the simulated link it crosses "
                                    "(kv_connector_extra_config.link: nvlink, infiniband, roce). serve: TcpConnector, "
                                    "kv_role kv_producer (listens on kv_ip:kv_port) or kv_consumer, behind "
                                    "llm-workbench proxy. Decode steps no longer wait behind long prefills, at the "
                                    "cost of the transfer and of two instances' memory")};
  k.get = [](const EngineConfig& c) -> KnobValue { return c.kvTransfer.toJson(); };
  k.set = [](EngineConfig& c, const KnobValue& v) { c.kvTransfer = parseKvTransferConfig(std::get<std::string>(v)); };
  t.push_back(k);
  for (Knob& each : t) {  // vLLM's flag spelling: --max-num-seqs for max_num_seqs
    each.flag = std::string(each.name);
    for (char& ch : each.flag) ch = ch == '_' ? '-' : ch;
  }
  return t;
}

// The shortest text that reads back as the same double ("0.9", not "0.90000000000000002";
// all the digits of 0.7123456789, which "%g" cut to 6): the text is what the command line,
// saved runs and the window show, and each must give back the value itself.
std::string formatReal(double v) {
  char b[64];
  const auto [end, ec] = std::to_chars(b, b + sizeof b, v);
  return ec == std::errc() ? std::string(b, end) : std::string("nan");
}

}  // namespace

const std::vector<Knob>& knobTable() {
  static const std::vector<Knob> table = makeTable();
  return table;
}

const Knob* findKnob(std::string_view name) {
  for (const Knob& k : knobTable())
    if (k.name == name) return &k;
  return nullptr;
}

const Knob* findKnobByFlag(std::string_view flag) {
  for (const Knob& k : knobTable())
    if (k.flag == flag) return &k;
  return nullptr;
}

std::string Knob::expectation() const {
  switch (kind) {
    case KnobKind::Bool:
      return "on or off";
    case KnobKind::Real:
      return "a number in (" + formatReal(realMin) + ", " + formatReal(realMax) + "]";
    case KnobKind::Choice: {
      std::string s = "one of ";
      for (size_t i = 0; i < choices.size(); ++i) s += (i ? ", " : "") + std::string(choices[i]);
      return s;
    }
    case KnobKind::Json:
      return "a JSON object ({} or null = off)";
    case KnobKind::Text:
      return "text";
    case KnobKind::Int:
      break;
  }
  std::string s = powerOfTwo ? "a power of two in " : "an integer in ";
  s += std::to_string(min) + ".." + std::to_string(max);
  if (!zeroMeaning.empty()) s += " (0 = " + std::string(zeroMeaning) + ")";
  return s;
}

std::string Knob::format(const KnobValue& v) const {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "on" : "off";
  if (const double* d = std::get_if<double>(&v)) return formatReal(*d);
  if (const std::string* s = std::get_if<std::string>(&v)) return kind == KnobKind::Json && s->empty() ? "off" : *s;
  const int64_t i = std::get<int64_t>(v);
  return i == 0 && !zeroLabel.empty() ? std::string(zeroLabel) : std::to_string(i);
}

std::string Knob::defaultText() const {
  const KnobValue v = get(EngineConfig{});
  return kind == KnobKind::Int ? std::to_string(std::get<int64_t>(v)) : format(v);
}

KnobValue Knob::parse(const std::string& text) const {
  const std::string bad = std::string(name) + ": expected " + expectation() + ", found '" + text + "'";
  switch (kind) {
    case KnobKind::Bool:
      if (text == "on" || text == "true" || text == "1") return true;
      if (text == "off" || text == "false" || text == "0") return false;
      throw Error(bad);
    case KnobKind::Choice:
    case KnobKind::Text:
      return text;
    case KnobKind::Json:
      return canonicalJson(text == "off" || text == "null" ? std::string() : text);
    case KnobKind::Real: {
      size_t used = 0;
      double d = NAN;
      try {
        d = std::stod(text, &used);
      } catch (const std::exception&) {
      }
      lwb::check(used > 0 && used == text.size() && !std::isnan(d), bad);
      return d;
    }
    case KnobKind::Int:
      break;
  }
  size_t used = 0;
  long long i = 0;
  try {
    i = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  lwb::check(used > 0 && used == text.size(), bad);
  return int64_t(i);
}

void Knob::check(const KnobValue& v) const {
  const std::string expected = "; expected " + expectation();
  switch (kind) {
    case KnobKind::Bool:
      return;
    case KnobKind::Real: {
      const double d = std::get<double>(v);
      lwb::check(d > realMin && d <= realMax, std::string(name) + ": " + formatReal(d) + " is out of range" + expected);
      return;
    }
    case KnobKind::Choice: {
      const std::string& s = std::get<std::string>(v);
      for (std::string_view c : choices)
        if (c == s) return;
      throw Error(std::string(name) + ": '" + s + "' is not a choice" + expected);
    }
    case KnobKind::Json:
      canonicalJson(std::get<std::string>(v));  // the knob's own parser names the field
      return;
    case KnobKind::Text:  // what reads it names the problem (an unknown preset, a bad file)
      lwb::check(!std::get<std::string>(v).empty(), std::string(name) + ": expected a value, found ''");
      return;
    case KnobKind::Int:
      break;
  }
  const int64_t i = std::get<int64_t>(v);
  lwb::check(i >= min && i <= max, std::string(name) + ": " + std::to_string(i) + " is out of range" + expected);
  lwb::check(!powerOfTwo || (i & (i - 1)) == 0,
             std::string(name) + ": " + std::to_string(i) + " is not a power of two" + expected);
}

// Json: the knob's setter parses and validates; its getter writes the canonical text.
std::string Knob::canonicalJson(const std::string& text) const {
  EngineConfig scratch;
  set(scratch, text);
  return std::get<std::string>(get(scratch));
}

bool Knob::rebuilds(const EngineConfig& from, const EngineConfig& to) const {
  if (get(from) == get(to)) return false;
  return structural() || (structuralWhen && structuralWhen(from, to));
}

std::string Knob::applyText() const {
  if (structural()) return "Structural: changing it rebuilds the KV cache";
  if (structuralWhen) return "Live: applies at the next step, but " + std::string(whenStructural) + " rebuilds the KV cache";
  return "Live: applies at the next step";
}

std::string describeChange(const EngineConfig& from, const EngineConfig& to) {
  std::string out;
  for (const Knob& k : knobTable()) {
    const KnobValue a = k.get(from), b = k.get(to);
    if (a == b) continue;
    if (!out.empty()) out += ", ";
    out += std::string(k.name) + " " + k.format(a) + " \u2192 " + k.format(b);
  }
  return out.empty() ? "no change" : out;
}

}  // namespace lwb
