#pragma once
// N-gram prompt lookup (vLLM's `ngram` method): the longest suffix of the sequence, of
// n tokens with prompt_lookup_min <= n <= prompt_lookup_max, that also occurs earlier in
// the prompt + output; the tokens that followed its most recent earlier occurrence are
// proposed. Costs no model call; accepted when the output repeats its context.
#include <vector>

namespace lwb {

// Up to `k` draft tokens for `tokens` (prompt + output so far); empty when no n-gram in
// [minN, maxN] recurs.
std::vector<int> proposeNgram(const std::vector<int>& tokens, int minN, int maxN, int k);

}  // namespace lwb
