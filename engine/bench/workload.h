#pragma once
// The synthetic serving workload of `llm-workbench bench` and the GUI's load generator,
// modelled on `vllm bench serve --dataset-name random` with a shared prefix:
//   prompt = BOS, the shared prefix of its group (P tokens), its own part
//            (L tokens, uniform in [L(1−r), L(1+r)]);
//   groups are assigned round-robin; arrivals are a Poisson process at R req/s
//   (exponential gaps), or all at t = 0 when R is infinite.
// Every id comes from `ordinaryIds` (no control, byte or user-defined pieces) and the
// whole workload is a pure function of the options: same seed → same prompts and times.
// Prompts and arrival times draw from separate streams, so changing the rate keeps the
// prompts.
// Optional background requests (not in vLLM's bench) model "steady decodes while new
// prompts arrive": they all arrive at t = 0, come first, have their own random prompts
// and always produce exactly their output length; the main arrivals then start one
// inter-arrival gap later instead of at t = 0.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/sample/sampling_params.h"

namespace lwb {

struct Model;

struct WorkloadOptions {
  int numPrompts = 100;               // num_prompts
  double requestRate = std::numeric_limits<double>::infinity();  // request_rate, req/s
  int inputLen = 128;                 // input_len: own part, excluding BOS and prefix
  double rangeRatio = 0.0;            // range_ratio, [0, 1)
  int outputLen = 64;                 // output_len: max_tokens of every request
  int sharedPrefixLen = 0;            // shared_prefix_len
  int numPrefixGroups = 1;            // num_prefix_groups
  bool ignoreEos = false;             // ignore_eos: produce exactly output_len tokens
  double temperature = 0.0;           // temperature (0 = greedy: the bench is about timing)
  uint64_t seed = 0;                  // seed
  int numBackgroundRequests = 0;      // num_background_requests
  int backgroundInputLen = 32;        // background_input_len (excluding BOS)
  int backgroundOutputLen = 200;      // background_output_len

  // Throws lwb::Error naming the option (vLLM spelling), the value and the range.
  void validate() const;
};

// Largest lengths / counts accepted, so that a typo cannot ask for terabytes.
constexpr int kMaxWorkloadPrompts = 1000000;
constexpr int kMaxWorkloadTokens = 1000000;
constexpr int64_t kMaxWorkloadTotalTokens = 100000000;  // all prompts together

// Sets one option from text. `name` may be given as "num-prompts", "--num-prompts" or
// "num_prompts"; flags without a value ("ignore-eos") take "" or "true"/"false".
// Returns false when the name is not a workload option; throws lwb::Error naming the
// option when the value does not parse or is out of range ("inf" is a valid rate).
bool parseWorkloadOption(const std::string& name, const std::string& value, WorkloadOptions* options);
bool isWorkloadOption(const std::string& name);  // same spellings as parseWorkloadOption

// The workload as bench JSON's "config" and saved runs hold it (vLLM names; an infinite
// rate is "inf"): num_prompts, request_rate, input_len, range_ratio, output_len,
// shared_prefix_len, num_prefix_groups, ignore_eos, temperature, seed.
nlohmann::json workloadJson(const WorkloadOptions& options);

struct SyntheticRequest {
  double arrivalTime = 0;             // seconds after the start of the run
  int group = 0;                      // prefix group; -1 for a background request
  std::vector<int> promptTokenIds;    // BOS, prefix, own part
  SamplingParams sampling;            // max_tokens = output_len, temperature, ignore_eos, seed
};

// Throws lwb::Error when the options are invalid or `ordinaryIds` is empty.
std::vector<SyntheticRequest> makeWorkload(const WorkloadOptions& options,
                                           const std::vector<int>& ordinaryIds, int bosId);

// The same for a model: its tokenizer's ordinary ids and BOS; a model without a tokenizer
// (a config-only folder on the sim backend) draws from [0, vocab_size) less its stop ids,
// with config.json's bos_token_id.
std::vector<SyntheticRequest> makeWorkloadFor(const WorkloadOptions& options, const Model& model);

// Cuts prompts longer than `maxPromptLen` tokens down to it (keeping BOS and the
// shared prefix first); returns how many were cut.
int clampPromptLengths(std::vector<SyntheticRequest>& requests, int maxPromptLen);
bool clampPromptLengths(SyntheticRequest& request, int maxPromptLen);  // true when cut

// The deterministic generator behind makeWorkload: xoshiro256** seeded by splitmix64,
// with explicit integer and exponential transforms, so results do not depend on the
// standard library's distributions.
class WorkloadRng {
 public:
  explicit WorkloadRng(uint64_t seed);
  uint64_t next();
  double uniform01();                     // [0, 1)
  int uniformInt(int lo, int hi);         // [lo, hi]
  double exponential(double rate);        // mean 1/rate

 private:
  uint64_t state_[4];
};

}  // namespace lwb
