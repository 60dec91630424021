#include "engine/bench/workload.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "engine/common/error.h"
#include "engine/model/model.h"

namespace lwb {
namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

std::string fmt(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

void checkRange(bool ok, const char* name, const std::string& value, const std::string& range) {
  check(ok, std::string("--") + name + " " + value + ": expected " + range);
}

// Each prompt group's shared prefix, then each prompt's own part: one stream, fixed order.
std::vector<std::vector<int>> makePrefixes(const WorkloadOptions& o, const std::vector<int>& ids, WorkloadRng& rng) {
  std::vector<std::vector<int>> prefixes(o.numPrefixGroups);
  for (auto& p : prefixes)
    for (int i = 0; i < o.sharedPrefixLen; ++i) p.push_back(ids[rng.uniformInt(0, int(ids.size()) - 1)]);
  return prefixes;
}

}  // namespace

WorkloadRng::WorkloadRng(uint64_t seed) {
  uint64_t x = seed;
  for (auto& s : state_) s = splitmix64(x);
}

uint64_t WorkloadRng::next() {
  const uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

double WorkloadRng::uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

// Lemire-style rejection keeps every value equally likely.
int WorkloadRng::uniformInt(int lo, int hi) {
  const uint64_t span = static_cast<uint64_t>(int64_t(hi) - int64_t(lo)) + 1;
  const uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  uint64_t r;
  do r = next(); while (r >= limit);
  return static_cast<int>(int64_t(lo) + int64_t(r % span));
}

double WorkloadRng::exponential(double rate) { return -std::log1p(-uniform01()) / rate; }

void WorkloadOptions::validate() const {
  checkRange(numPrompts >= 1 && numPrompts <= kMaxWorkloadPrompts, "num-prompts", std::to_string(numPrompts),
             "1.." + std::to_string(kMaxWorkloadPrompts));
  checkRange(requestRate > 0 && !std::isnan(requestRate), "request-rate", fmt(requestRate), "> 0 or inf");
  checkRange(inputLen >= 0 && inputLen <= kMaxWorkloadTokens, "input-len", std::to_string(inputLen),
             "0.." + std::to_string(kMaxWorkloadTokens));
  checkRange(rangeRatio >= 0 && rangeRatio < 1, "range-ratio", fmt(rangeRatio), "[0, 1)");
  checkRange(outputLen >= 1 && outputLen <= kMaxWorkloadTokens, "output-len", std::to_string(outputLen),
             "1.." + std::to_string(kMaxWorkloadTokens));
  checkRange(sharedPrefixLen >= 0 && sharedPrefixLen <= kMaxWorkloadTokens, "shared-prefix-len",
             std::to_string(sharedPrefixLen), "0.." + std::to_string(kMaxWorkloadTokens));
  checkRange(numPrefixGroups >= 1 && numPrefixGroups <= numPrompts, "num-prefix-groups",
             std::to_string(numPrefixGroups), "1..num-prompts (" + std::to_string(numPrompts) + ")");
  checkRange(temperature >= 0 && std::isfinite(temperature), "temperature", fmt(temperature), ">= 0");
  checkRange(numBackgroundRequests >= 0 && numBackgroundRequests <= kMaxWorkloadPrompts, "num-background-requests",
             std::to_string(numBackgroundRequests), "0.." + std::to_string(kMaxWorkloadPrompts));
  checkRange(backgroundInputLen >= 0 && backgroundInputLen <= kMaxWorkloadTokens, "background-input-len",
             std::to_string(backgroundInputLen), "0.." + std::to_string(kMaxWorkloadTokens));
  checkRange(backgroundOutputLen >= 1 && backgroundOutputLen <= kMaxWorkloadTokens, "background-output-len",
             std::to_string(backgroundOutputLen), "1.." + std::to_string(kMaxWorkloadTokens));
  const double maxOwn = std::floor(inputLen * (1.0 + rangeRatio));
  const double totalTokens = double(numPrompts) * (1.0 + sharedPrefixLen + maxOwn) +
                             double(numBackgroundRequests) * (1.0 + backgroundInputLen);
  check(totalTokens <= kMaxWorkloadTotalTokens,
        "--num-prompts " + std::to_string(numPrompts) + " with --input-len " + std::to_string(inputLen) +
            " and --shared-prefix-len " + std::to_string(sharedPrefixLen) + ": up to " + fmt(totalTokens) +
            " prompt tokens, expected at most " + std::to_string(kMaxWorkloadTotalTokens));
}

namespace {

std::string canonicalName(std::string name) {
  while (!name.empty() && name.front() == '-') name.erase(name.begin());
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

template <typename T, typename Parse>
T parseOrThrow(const std::string& name, const std::string& value, Parse parse) {
  try {
    size_t used = 0;
    T v = parse(value, &used);
    if (used == value.size() && !value.empty()) return v;
  } catch (const std::exception&) {
  }
  throw Error("--" + name + " '" + value + "': not a valid number");
}

int parseInt(const std::string& name, const std::string& value) {
  const long long v = parseOrThrow<long long>(name, value, [](const std::string& s, size_t* n) { return std::stoll(s, n); });
  if (v < INT32_MIN || v > INT32_MAX) throw Error("--" + name + " " + value + ": out of range");
  return static_cast<int>(v);
}

double parseDouble(const std::string& name, const std::string& value) {
  if (value == "inf" || value == "Inf" || value == "INF") return std::numeric_limits<double>::infinity();
  return parseOrThrow<double>(name, value, [](const std::string& s, size_t* n) { return std::stod(s, n); });
}

bool parseBool(const std::string& name, const std::string& value) {
  if (value.empty() || value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  throw Error("--" + name + " '" + value + "': expected true or false");
}

}  // namespace

namespace {

using Setter = std::function<void(WorkloadOptions&, const std::string& name, const std::string& value)>;

Setter intSetter(int WorkloadOptions::*field) {
  return [=](WorkloadOptions& o, const std::string& n, const std::string& v) { o.*field = parseInt(n, v); };
}

Setter doubleSetter(double WorkloadOptions::*field) {
  return [=](WorkloadOptions& o, const std::string& n, const std::string& v) { o.*field = parseDouble(n, v); };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"num-prompts", intSetter(&WorkloadOptions::numPrompts)},
      {"request-rate", doubleSetter(&WorkloadOptions::requestRate)},
      {"input-len", intSetter(&WorkloadOptions::inputLen)},
      {"range-ratio", doubleSetter(&WorkloadOptions::rangeRatio)},
      {"output-len", intSetter(&WorkloadOptions::outputLen)},
      {"shared-prefix-len", intSetter(&WorkloadOptions::sharedPrefixLen)},
      {"num-prefix-groups", intSetter(&WorkloadOptions::numPrefixGroups)},
      {"ignore-eos", [](WorkloadOptions& o, const std::string& n, const std::string& v) { o.ignoreEos = parseBool(n, v); }},
      {"temperature", doubleSetter(&WorkloadOptions::temperature)},
      {"seed", [](WorkloadOptions& o, const std::string& n, const std::string& v) {
         const long long seed = parseOrThrow<long long>(n, v, [](const std::string& s, size_t* k) { return std::stoll(s, k); });
         if (seed < 0) throw Error("--seed " + v + ": expected >= 0");
         o.seed = static_cast<uint64_t>(seed);
       }},
      {"num-background-requests", intSetter(&WorkloadOptions::numBackgroundRequests)},
      {"background-input-len", intSetter(&WorkloadOptions::backgroundInputLen)},
      {"background-output-len", intSetter(&WorkloadOptions::backgroundOutputLen)},
  };
  return table;
}

}  // namespace

bool isWorkloadOption(const std::string& name) { return setters().count(canonicalName(name)) > 0; }

nlohmann::json workloadJson(const WorkloadOptions& w) {
  using nlohmann::json;
  return json{{"num_prompts", w.numPrompts},
              {"request_rate", std::isinf(w.requestRate) ? json("inf") : json(w.requestRate)},
              {"input_len", w.inputLen},
              {"range_ratio", w.rangeRatio},
              {"output_len", w.outputLen},
              {"shared_prefix_len", w.sharedPrefixLen},
              {"num_prefix_groups", w.numPrefixGroups},
              {"ignore_eos", w.ignoreEos},
              {"temperature", w.temperature},
              {"seed", w.seed}};
}

bool parseWorkloadOption(const std::string& rawName, const std::string& value, WorkloadOptions* o) {
  const std::string name = canonicalName(rawName);
  const auto it = setters().find(name);
  if (it == setters().end()) return false;
  it->second(*o, name, value);
  return true;
}

namespace {

SamplingParams samplingFor(const WorkloadOptions& o, int maxTokens, bool ignoreEos, uint64_t index) {
  SamplingParams p;
  p.temperature = static_cast<float>(o.temperature);
  p.maxTokens = maxTokens;
  p.ignoreEos = ignoreEos;
  p.seed = o.seed + index;
  return p;
}

void appendRandom(std::vector<int>& out, int n, const std::vector<int>& ids, WorkloadRng& rng) {
  for (int k = 0; k < n; ++k) out.push_back(ids[rng.uniformInt(0, int(ids.size()) - 1)]);
}

void addBackground(const WorkloadOptions& o, const std::vector<int>& ids, int bosId, std::vector<SyntheticRequest>& out) {
  WorkloadRng rng(o.seed ^ 0x5bd1e9955bd1e995ULL);
  for (int i = 0; i < o.numBackgroundRequests; ++i) {
    SyntheticRequest r;
    r.group = -1;
    if (bosId >= 0) r.promptTokenIds.push_back(bosId);  // tokenizers such as Qwen's have no BOS
    appendRandom(r.promptTokenIds, o.backgroundInputLen, ids, rng);
    r.sampling = samplingFor(o, o.backgroundOutputLen, true, out.size());
    out.push_back(std::move(r));
  }
}

}  // namespace

std::vector<SyntheticRequest> makeWorkload(const WorkloadOptions& o, const std::vector<int>& ids, int bosId) {
  o.validate();
  check(!ids.empty(), "synthetic workload: the tokenizer has no ordinary vocabulary ids to draw from");
  std::vector<SyntheticRequest> out;
  out.reserve(size_t(o.numBackgroundRequests) + size_t(o.numPrompts));
  addBackground(o, ids, bosId, out);
  WorkloadRng promptRng(o.seed);
  WorkloadRng arrivalRng(o.seed ^ 0xa5a5a5a5deadbeefULL);
  const auto prefixes = makePrefixes(o, ids, promptRng);
  const int lo = static_cast<int>(std::floor(o.inputLen * (1.0 - o.rangeRatio)));
  const int hi = static_cast<int>(std::floor(o.inputLen * (1.0 + o.rangeRatio)));
  const bool poisson = std::isfinite(o.requestRate);
  double t = 0;
  for (int i = 0; i < o.numPrompts; ++i) {
    SyntheticRequest r;
    r.group = i % o.numPrefixGroups;
    if (poisson && (i > 0 || o.numBackgroundRequests > 0)) t += arrivalRng.exponential(o.requestRate);
    r.arrivalTime = t;
    r.promptTokenIds.reserve(1 + prefixes[r.group].size() + size_t(hi));
    if (bosId >= 0) r.promptTokenIds.push_back(bosId);
    r.promptTokenIds.insert(r.promptTokenIds.end(), prefixes[r.group].begin(), prefixes[r.group].end());
    appendRandom(r.promptTokenIds, promptRng.uniformInt(lo, hi), ids, promptRng);
    r.sampling = samplingFor(o, o.outputLen, o.ignoreEos, out.size());
    out.push_back(std::move(r));
  }
  return out;
}

int clampPromptLengths(std::vector<SyntheticRequest>& requests, int maxPromptLen) {
  check(maxPromptLen >= 1, "clampPromptLengths: maximum prompt length must be at least 1, got " +
                               std::to_string(maxPromptLen));
  int numClamped = 0;
  for (auto& r : requests) numClamped += clampPromptLengths(r, maxPromptLen);
  return numClamped;
}

bool clampPromptLengths(SyntheticRequest& request, int maxPromptLen) {
  check(maxPromptLen >= 1, "clampPromptLengths: maximum prompt length must be at least 1, got " +
                               std::to_string(maxPromptLen));
  if (static_cast<int>(request.promptTokenIds.size()) <= maxPromptLen) return false;
  request.promptTokenIds.resize(size_t(maxPromptLen));
  return true;
}

std::vector<SyntheticRequest> makeWorkloadFor(const WorkloadOptions& options, const Model& model) {
  if (model.tokenizer) return makeWorkload(options, model.tokenizer->ordinaryIds(), model.tokenizer->bosId());
  const std::vector<int> stops = model.stopTokenIds();  // sorted
  std::vector<int> ids;
  ids.reserve(size_t(model.config.vocabSize));
  for (int id = 0; id < model.config.vocabSize; ++id)
    if (id != model.config.bosTokenId && !std::binary_search(stops.begin(), stops.end(), id)) ids.push_back(id);
  const int bos = model.config.bosTokenId >= 0 && model.config.bosTokenId < model.config.vocabSize ? model.config.bosTokenId
                                                                                                   : ids.front();
  return makeWorkload(options, ids, bos);
}

}  // namespace lwb
