#include "engine/kv/prefix_miss.h"

#include <numeric>

namespace lwb {

namespace {
constexpr std::array<std::string_view, kNumPrefixMissReasons> kNames = {
    "caching_off", "partial_block", "last_token", "evicted", "behind_miss", "diverged", "cold"};
}

std::string_view prefixMissReasonName(PrefixMissReason r) { return kNames[size_t(r)]; }

int prefixMissReasonIndex(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return int(i);
  return -1;
}

int PrefixMiss::numMissed() const { return std::accumulate(numTokens.begin(), numTokens.end(), 0); }

}  // namespace lwb
