#pragma once
// The knob table: every engine knob declared once, with vLLM's name. Validation, the
// structural diff, change descriptions, JSON in/out, the CLI flags of every sub-command,
// the man page's knob list and the GUI form all walk this table, so adding a knob is
// one entry here plus the code that reads the field.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace lwb {

struct EngineConfig;

// vLLM's knob names, spelled once: code that names a knob (a message, a JSON key of
// an API, a chart label) uses these, never its own literal.
namespace knob {
inline constexpr std::string_view kMaxNumBatchedTokens = "max_num_batched_tokens";
inline constexpr std::string_view kMaxNumSeqs = "max_num_seqs";
inline constexpr std::string_view kEnableChunkedPrefill = "enable_chunked_prefill";
inline constexpr std::string_view kEnablePrefixCaching = "enable_prefix_caching";
inline constexpr std::string_view kLongPrefillTokenThreshold = "long_prefill_token_threshold";
inline constexpr std::string_view kSchedulingPolicy = "scheduling_policy";
inline constexpr std::string_view kMaxModelLen = "max_model_len";
inline constexpr std::string_view kSchedulerReserveFullIsl = "scheduler_reserve_full_isl";
inline constexpr std::string_view kBlockSize = "block_size";
inline constexpr std::string_view kKvCacheMemoryBytes = "kv_cache_memory_bytes";
inline constexpr std::string_view kNumGpuBlocksOverride = "num_gpu_blocks_override";
inline constexpr std::string_view kBackend = "backend";
inline constexpr std::string_view kThreads = "threads";
inline constexpr std::string_view kGpuMemoryUtilization = "gpu_memory_utilization";
inline constexpr std::string_view kQuantization = "quantization";
inline constexpr std::string_view kKvCacheDtype = "kv_cache_dtype";
inline constexpr std::string_view kSimHardware = "sim_hardware";
inline constexpr std::string_view kTensorParallelSize = "tensor_parallel_size";
inline constexpr std::string_view kSpeculativeConfig = "speculative_config";
inline constexpr std::string_view kKvTransferConfig = "kv_transfer_config";
}  // namespace knob

// Json: a JSON object (vLLM's speculative_config); text on the command line and in the
// form, an object in config JSON, null there or "" in the value when off. Text: free text
// that the code reading it validates (sim_hardware: a preset name or a file's path).
enum class KnobKind { Int, Bool, Real, Choice, Json, Text };

// When a change takes effect.
enum class KnobApply {
  Live,             // at the next step boundary
  RebuildKv,        // structural: the KV pool is rebuilt (in-flight work drains or aborts)
  RebuildExecutor,  // structural: a new executor, then a new KV pool
};

// bool (Bool), int64_t (Int), double (Real), std::string (Choice, Text; Json: the canonical
// compact JSON text, "" when off).
using KnobValue = std::variant<bool, int64_t, double, std::string>;

struct Knob {
  std::string_view name;        // vLLM's name: JSON key, GUI label, change markers
  KnobKind kind;
  KnobApply apply;
  std::string_view unit;        // "tokens", "bytes", ... ("" when none)
  std::string_view help;        // one line that teaches the trade-off
  std::string_view zeroLabel;   // Int: what 0 means, shown instead of "0" ("" = a plain 0)
  std::string_view zeroMeaning; // Int: the long form, for help and error text
  int64_t min = 0, max = 0;     // Int: inclusive range
  bool powerOfTwo = false;      // Int
  double realMin = 0, realMax = 0;  // Real: (realMin, realMax]
  std::vector<std::string_view> choices;  // Choice
  KnobValue (*get)(const EngineConfig&);
  void (*set)(EngineConfig&, const KnobValue&);  // Choice, Json: throws lwb::Error on a bad value
  // A Live knob whose change is structural (rebuilds the KV cache) only for some values:
  // this says when (speculative_config: a draft model switch); `whenStructural` says it in words.
  bool (*structuralWhen)(const EngineConfig& from, const EngineConfig& to) = nullptr;
  std::string_view whenStructural;
  std::string flag;             // CLI flag without "--": the name with dashes ("no-" + flag turns a Bool off)

  bool structural() const { return apply != KnobApply::Live; }
  // Whether changing this knob from `from` to `to` rebuilds the KV cache (or more).
  bool rebuilds(const EngineConfig& from, const EngineConfig& to) const;
  // "Live: applies at the next step", "Structural: changing it rebuilds the KV cache", or
  // for a conditionally structural knob both, with the condition.
  std::string applyText() const;
  // "an integer in 0..65536 (0 = vLLM's default for the device)", "one of fcfs, priority", ...
  std::string expectation() const;
  // "2048", "default", "on", "fcfs", "0.9", "off" or the JSON text (Json)
  std::string format(const KnobValue& v) const;
  // The default for help texts: "0" rather than "default" (expectation() says what 0 means).
  std::string defaultText() const;
  // Text as typed on a command line or in a form ("on"/"off"/"true"/"1" for Bool; Json:
  // an object, "", "{}", "null" or "off" = off, parsed and checked by the knob's set).
  // Throws lwb::Error "<name>: expected <expectation>, found '<text>'".
  KnobValue parse(const std::string& text) const;
  // Throws lwb::Error "<name>: <value> is out of range; expected <expectation>".
  void check(const KnobValue& v) const;

 private:
  std::string canonicalJson(const std::string& text) const;
};

// In the order the CLI help, the man page and the GUI form list them.
const std::vector<Knob>& knobTable();
const Knob* findKnob(std::string_view name);        // by vLLM name
const Knob* findKnobByFlag(std::string_view flag);  // "max-num-seqs" (no dashes; not "no-...")

// "max_num_batched_tokens default → 512, enable_chunked_prefill on → off", or "no change".
std::string describeChange(const EngineConfig& from, const EngineConfig& to);

}  // namespace lwb
