#include "remote/server_knobs.h"

#include <algorithm>
#include <cctype>

#include "engine/common/error.h"

namespace lwb::remote {

namespace {

// Server setting → our knob of the same meaning. vLLM's labels carry vLLM's names;
// llama.cpp's total_slots is how many sequences run at once, and n_ctx (per slot) is
// the longest sequence one request may have.
struct KnobSource {
  const char* serverKey;
  std::string_view knob;
};
const KnobSource kSources[] = {
    {"block_size", knob::kBlockSize},
    {"enable_prefix_caching", knob::kEnablePrefixCaching},
    {"gpu_memory_utilization", knob::kGpuMemoryUtilization},
    {"num_gpu_blocks_override", knob::kNumGpuBlocksOverride},
    {"kv_cache_memory_bytes", knob::kKvCacheMemoryBytes},
    {"max_num_batched_tokens", knob::kMaxNumBatchedTokens},
    {"max_num_seqs", knob::kMaxNumSeqs},
    {"max_model_len", knob::kMaxModelLen},
    {"total_slots", knob::kMaxNumSeqs},
    {"n_ctx", knob::kMaxModelLen},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// Python's spelling (vLLM's labels are str() of the value): True/False, and None for
// an optional setting left unset, which is what our 0 ("from the memory budget") means.
std::string asKnobText(const Knob& k, const std::string& text) {
  if (k.kind == KnobKind::Bool) return lower(text);
  if (text == "None" && k.kind == KnobKind::Int && k.min == 0) return "0";
  return text;
}

}  // namespace

ServerKnobs knobsFromServerConfig(const RemoteServerConfig& config) {
  ServerKnobs out;
  for (const KnobSource& s : kSources) {
    const ServerConfigEntry* e = config.find(s.serverKey);
    const Knob* k = findKnob(s.knob);
    if (!e || !k || out.known.count(std::string(s.knob))) continue;
    const std::string source = e->source + " " + s.serverKey;
    try {
      KnobValue v = k->parse(asKnobText(*k, e->value));
      k->check(v);
      out.known[std::string(s.knob)] = {std::move(v), e->value, source};
    } catch (const Error& err) {
      out.problems.push_back(std::string(err.what()) + " (" + source + ")");
    }
  }
  return out;
}

}  // namespace lwb::remote
