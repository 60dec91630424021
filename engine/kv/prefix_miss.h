#pragma once
// Why a prompt's tokens missed the prefix cache: at a request's first admission every
// prompt token is either a hit (counted in cached tokens) or missed for exactly one
// reason, so cached tokens + the sum over reasons = the prompt's length. The reasons, by
// precedence (docs/scheduling.md, "Why a prefix missed"):
//   caching_off    enable_prefix_caching is off: every prompt token;
//   partial_block  the prompt's trailing incomplete block (only full blocks are cached);
//   last_token     the last full block, which would have hit, dropped only because the
//                  last prompt token must be computed (its logits are needed);
//   evicted        the block was cached and its hash has since been evicted;
//   behind_miss    the block is cached right now, but an earlier block of the prompt
//                  missed and the lookup stops at the first miss (vLLM's semantics);
//   diverged       the first never-seen full block, when an earlier sequence shared the
//                  tokens before the divergence (k = divergedAtToken > 0);
//   cold           every other missed full block: no earlier sequence had it.
// Tokens recomputed after a preemption are reported apart (recomputedAfterPreemption),
// outside the sum.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lwb {

enum class PrefixMissReason { CachingOff, PartialBlock, LastToken, Evicted, BehindMiss, Diverged, Cold };
inline constexpr int kNumPrefixMissReasons = 7;
// The one spelling of each reason (JSON keys, CSV columns, the /metrics label, views).
std::string_view prefixMissReasonName(PrefixMissReason r);  // "caching_off", ...
inline PrefixMissReason prefixMissReasonAt(int i) { return PrefixMissReason(i); }
// -1 when `name` is no reason's name.
int prefixMissReasonIndex(std::string_view name);

struct PrefixMiss {
  std::array<int, kNumPrefixMissReasons> numTokens{};  // [reason]: prompt tokens missed for it
  // diverged: the number of leading prompt tokens shared with the remembered earlier
  // sequence that matches longest (= index of the first differing token); -1 if none.
  int divergedAtToken = -1;
  std::vector<int> divergedOurIds, divergedTheirIds;  // a few token ids from k on, each side
  std::string divergedOurText, divergedTheirText;     // the same, as text (the engine decodes)
  // evicted: when the first of its evicted blocks was evicted (engine clock seconds; -1
  // if none), and the requests whose allocations evicted its blocks (a few, distinct).
  double evictedTime = -1;
  std::vector<int64_t> evictedBy;
  // Tokens computed again after preemptions (those recovered from the cache excepted);
  // not part of the sum over reasons.
  int recomputedAfterPreemption = 0;
  bool accounted = false;  // set at first admission

  int& operator[](PrefixMissReason r) { return numTokens[size_t(r)]; }
  int operator[](PrefixMissReason r) const { return numTokens[size_t(r)]; }
  int numMissed() const;  // sum over reasons
};

}  // namespace lwb
