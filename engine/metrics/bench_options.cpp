#include "engine/metrics/bench_options.h"

#include <cmath>
#include <functional>
#include <map>

namespace lwb {
namespace {

using Apply = std::function<void(BenchOptions&, const std::string& flag, const std::string& value)>;

long long parseInteger(const std::string& flag, const std::string& value, long long lo, long long hi) {
  long long v = 0;
  size_t used = 0;
  try {
    v = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || used != value.size()) throw UsageError(flag + " '" + value + "': not an integer");
  if (v < lo || v > hi)
    throw UsageError(flag + " " + value + ": out of range, expected " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

Apply intKnob(int EngineConfig::*field, long long lo, long long hi) {
  return [=](BenchOptions& o, const std::string& f, const std::string& v) {
    o.engine.*field = static_cast<int>(parseInteger(f, v, lo, hi));
  };
}

Apply boolKnob(bool EngineConfig::*field, bool value) {
  return [=](BenchOptions& o, const std::string&, const std::string&) { o.engine.*field = value; };
}

Apply text(std::string BenchOptions::*field) {
  return [=](BenchOptions& o, const std::string& f, const std::string& v) {
    if (v.empty()) throw UsageError(f + ": expected a non-empty value");
    o.*field = v;
  };
}

Apply blockSize() {
  return [](BenchOptions& o, const std::string& f, const std::string& v) {
    const long long b = parseInteger(f, v, 1, 256);
    if ((b & (b - 1)) != 0) throw UsageError(f + " " + v + ": expected a power of two in 1..256");
    o.engine.blockSize = static_cast<int>(b);
  };
}

Apply choice(std::vector<std::string> allowed, std::function<void(BenchOptions&, const std::string&)> set) {
  return [=](BenchOptions& o, const std::string& f, const std::string& v) {
    for (const auto& a : allowed)
      if (a == v) return set(o, v);
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : "|") + a;
    throw UsageError(f + " '" + v + "': expected " + list);
  };
}

// Flags that take a value; the others are switches.
const std::map<std::string, Apply>& valueFlags() {
  static const std::map<std::string, Apply> flags = {
      {"--model", text(&BenchOptions::modelDir)},
      {"--json", text(&BenchOptions::jsonPath)},
      {"--trace", text(&BenchOptions::tracePath)},
      {"--csv", text(&BenchOptions::csvPrefix)},
      {"--max-num-batched-tokens", intKnob(&EngineConfig::maxNumBatchedTokens, 1, 1 << 20)},
      {"--max-num-seqs", intKnob(&EngineConfig::maxNumSeqs, 1, 1 << 16)},
      {"--block-size", blockSize()},
      {"--num-gpu-blocks-override", intKnob(&EngineConfig::numGpuBlocksOverride, 0, 1 << 24)},
      {"--long-prefill-token-threshold", intKnob(&EngineConfig::longPrefillTokenThreshold, 0, 1 << 20)},
      {"--max-model-len", intKnob(&EngineConfig::maxModelLen, 0, 1 << 24)},
      {"--kv-cache-memory-bytes", [](BenchOptions& o, const std::string& f, const std::string& v) {
         o.engine.kvCacheMemoryBytes = parseInteger(f, v, 0, 1LL << 50);
       }},
      {"--threads", [](BenchOptions& o, const std::string& f, const std::string& v) {
         o.engine.executor.numThreads = static_cast<int>(parseInteger(f, v, 0, 1024));
       }},
      {"--backend", choice({"auto", "cpu", "cuda"}, [](BenchOptions& o, const std::string& v) { o.engine.executor.backend = v; })},
      {"--quantization", choice({"none", "q8_0", "q4_k"}, [](BenchOptions& o, const std::string& v) {
         o.engine.executor.quantization = v == "none" ? "" : v;
       })},
      {"--speculative-config", [](BenchOptions& o, const std::string&, const std::string& v) {
         try {
           o.engine.speculative = parseSpeculativeConfig(v);
         } catch (const Error& e) {
           throw UsageError(e.what());
         }
       }},
      {"--scheduling-policy", choice({"fcfs", "priority"}, [](BenchOptions& o, const std::string& v) {
         o.engine.schedulingPolicy = v == "fcfs" ? SchedulingPolicy::Fcfs : SchedulingPolicy::Priority;
       })},
  };
  return flags;
}

const std::map<std::string, Apply>& switchFlags() {
  static const std::map<std::string, Apply> flags = {
      {"--help", [](BenchOptions& o, const std::string&, const std::string&) { o.help = true; }},
      {"-h", [](BenchOptions& o, const std::string&, const std::string&) { o.help = true; }},
      {"--quiet", [](BenchOptions& o, const std::string&, const std::string&) { o.quiet = true; }},
      {"--enable-chunked-prefill", boolKnob(&EngineConfig::enableChunkedPrefill, true)},
      {"--no-enable-chunked-prefill", boolKnob(&EngineConfig::enableChunkedPrefill, false)},
      {"--enable-prefix-caching", boolKnob(&EngineConfig::enablePrefixCaching, true)},
      {"--no-enable-prefix-caching", boolKnob(&EngineConfig::enablePrefixCaching, false)},
      {"--scheduler-reserve-full-isl", boolKnob(&EngineConfig::schedulerReserveFullIsl, true)},
      {"--no-scheduler-reserve-full-isl", boolKnob(&EngineConfig::schedulerReserveFullIsl, false)},
      {"--ignore-eos", [](BenchOptions& o, const std::string&, const std::string&) { o.workload.ignoreEos = true; }},
  };
  return flags;
}

// Workload options that take a value, in their flag spelling.
bool isWorkloadValueFlag(const std::string& flag) {
  return flag.rfind("--", 0) == 0 && flag != "--ignore-eos" && isWorkloadOption(flag);
}

void applyValue(BenchOptions& o, const std::string& flag, const std::string& value) {
  if (auto it = valueFlags().find(flag); it != valueFlags().end()) return it->second(o, flag, value);
  try {
    parseWorkloadOption(flag, value, &o.workload);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

BenchOptions parseBenchArgs(const std::vector<std::string>& args) {
  BenchOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    const size_t eq = flag.find('=');
    const bool inlineValue = flag.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inlineValue) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    if (auto it = switchFlags().find(flag); it != switchFlags().end()) {
      if (inlineValue) throw UsageError(flag + " takes no value");
      it->second(o, flag, "");
      continue;
    }
    if (!valueFlags().count(flag) && !isWorkloadValueFlag(flag))
      throw UsageError("unknown option '" + flag + "' (see llm-workbench bench --help)");
    if (!inlineValue) {
      if (i + 1 >= args.size()) throw UsageError(flag + ": missing value");
      value = args[++i];
    }
    applyValue(o, flag, value);
  }
  if (o.help) return o;
  try {
    o.workload.validate();
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  return o;
}

std::string benchUsage() {
  return R"(Usage: llm-workbench bench [options]
Serving benchmark in the manner of `vllm bench serve`: a synthetic workload (random
ordinary-vocabulary prompts, optionally behind shared prefixes) arrives as a Poisson
process and is served by the in-process engine; prints TTFT / TPOT / ITL / E2E
statistics, throughput, prefix-cache hit rate, preemptions and KV-cache usage.

Workload:
  --model DIR                     model folder (default: the bundled austen-chat-11m)
  --num-prompts N                 number of requests (default 100)
  --request-rate R|inf            Poisson arrival rate in req/s; inf = all at t=0 (default inf)
  --input-len L                   own prompt tokens per request (default 128)
  --range-ratio r                 own length uniform in [L(1-r), L(1+r)], 0 <= r < 1 (default 0)
  --output-len M                  max tokens per request (default 64)
  --shared-prefix-len P           tokens of a shared prefix before each prompt (default 0)
  --num-prefix-groups G           distinct shared prefixes, assigned round-robin (default 1)
  --ignore-eos                    always generate exactly M tokens
  --temperature T                 sampling temperature (default 0 = greedy)
  --seed S                        seed of prompts, arrivals and sampling (default 0)
  --num-background-requests N     extra requests at t=0 that decode steadily while the
                                  workload arrives (default 0); the workload then starts
                                  one inter-arrival gap later
  --background-input-len L        their prompt tokens (default 32)
  --background-output-len M       their output tokens, always exactly M (default 200)
Engine knobs (vLLM names):
  --max-num-batched-tokens N      token budget of one step (default: vLLM's for the device,
                                  2048 on CPU, 2048 or 8192 on a GPU); at least max_num_seqs,
                                  and max_model_len without chunked prefill
  --max-num-seqs N                requests in one step (default: vLLM's for the device, 128
                                  on CPU, 256 or 1024 on a GPU)
  --enable-chunked-prefill | --no-enable-chunked-prefill           (default on)
  --enable-prefix-caching  | --no-enable-prefix-caching            (default on)
  --scheduler-reserve-full-isl | --no-scheduler-reserve-full-isl    (default on)
                                  admit a request only if its whole sequence fits in KV
  --block-size N                  tokens per KV block, a power of two (default 16)
  --num-gpu-blocks-override N     number of KV blocks (0 = from the memory budget)
  --kv-cache-memory-bytes N       KV-cache memory budget (0 = default)
  --long-prefill-token-threshold N  cap on one prompt's chunk per step (0 = off)
  --scheduling-policy fcfs|priority
  --max-model-len N               context limit (0 = the model's)
  --backend auto|cpu|cuda         executor (default auto)
  --threads N                     CPU threads (0 = all cores)
  --quantization none|q8_0|q4_k   quantize the weights at load (CPU backend)
  --speculative-config JSON       speculative decoding, as vLLM takes it (default off):
                                  '{"method": "ngram", "num_speculative_tokens": 4,
                                  "prompt_lookup_min": 2, "prompt_lookup_max": 4}'
Output:
  --json FILE                     results as `vllm bench serve --save-result` JSON, plus
                                  per-request records
  --trace FILE                    Chrome trace-event JSON (open in ui.perfetto.dev)
  --csv PREFIX                    PREFIX_requests.csv and PREFIX_steps.csv
  --quiet                         no progress output
  --help                          this text
)";
}

nlohmann::json benchConfigJson(const WorkloadOptions& w, const EngineConfig& e) {
  const bool infRate = !std::isfinite(w.requestRate);
  return {{"num_prompts", w.numPrompts}, {"request_rate", infRate ? nlohmann::json("inf") : nlohmann::json(w.requestRate)},
          {"input_len", w.inputLen}, {"range_ratio", w.rangeRatio}, {"output_len", w.outputLen},
          {"shared_prefix_len", w.sharedPrefixLen}, {"num_prefix_groups", w.numPrefixGroups},
          {"ignore_eos", w.ignoreEos}, {"temperature", w.temperature}, {"seed", w.seed},
          {"max_num_batched_tokens", e.maxNumBatchedTokens}, {"max_num_seqs", e.maxNumSeqs},
          {"enable_chunked_prefill", e.enableChunkedPrefill}, {"enable_prefix_caching", e.enablePrefixCaching},
          {"long_prefill_token_threshold", e.longPrefillTokenThreshold},
          {"scheduler_reserve_full_isl", e.schedulerReserveFullIsl},
          {"scheduling_policy", e.schedulingPolicy == SchedulingPolicy::Fcfs ? "fcfs" : "priority"},
          {"max_model_len", e.maxModelLen}, {"block_size", e.blockSize},
          {"kv_cache_memory_bytes", e.kvCacheMemoryBytes}, {"num_gpu_blocks_override", e.numGpuBlocksOverride},
          {"backend", e.executor.backend}, {"threads", e.executor.numThreads},
          {"quantization", e.executor.quantization.empty() ? "none" : e.executor.quantization},
          {"speculative_config", e.speculative.enabled() ? nlohmann::json::parse(e.speculative.toJson()) : nlohmann::json()}};
}

}  // namespace lwb
