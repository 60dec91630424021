#include "engine/spec/ngram_proposer.h"

#include <algorithm>

namespace lwb {

namespace {

// Start of the most recent occurrence of the last n tokens that begins before them, or -1.
int lastEarlierOccurrence(const std::vector<int>& t, int n) {
  const int len = int(t.size());
  const int suffix = len - n;
  for (int start = suffix - 1; start >= 0; --start)
    if (std::equal(t.begin() + suffix, t.end(), t.begin() + start)) return start;
  return -1;
}

}  // namespace

std::vector<int> proposeNgram(const std::vector<int>& tokens, int minN, int maxN, int k) {
  const int len = int(tokens.size());
  for (int n = std::min(maxN, len - 1); n >= std::max(minN, 1); --n) {
    const int start = lastEarlierOccurrence(tokens, n);
    if (start < 0) continue;
    const int from = start + n;  // < len: the occurrence begins before the suffix
    const int count = std::min(k, len - from);
    return {tokens.begin() + from, tokens.begin() + from + count};
  }
  return {};
}

}  // namespace lwb
