#pragma once
// When a request stops, in vLLM V1's order (check_stop and the detokenizer): min_tokens
// first, then EOS, then stop_token_ids, then stop strings, then length (max_tokens or
// max_model_len). A stop string completed by the last allowed token therefore wins
// over a length finish.
#include <vector>

#include "engine/model/output_text.h"
#include "engine/sched/request.h"

namespace lwb {

// vLLM's min_tokens logits processor: while the output is shorter than min_tokens, the
// stop tokens (the model's EOS unless ignore_eos, and stop_token_ids) get -inf.
// logits: [vocabSize]
void maskStopTokens(const Request& r, const std::vector<int>& modelStopIds, float* logits, int vocabSize);

// After `r`'s newest token (the last of r.tokenIds) was appended: why it stops, or
// FinishReason::None. Feeds the token's text to `text` (not a stop token's: its text is
// not part of the output); stop strings are looked for once the output is past
// min_tokens. max_model_len is a hard limit, min_tokens or not.
FinishReason checkStop(const Request& r, const std::vector<int>& modelStopIds, int maxModelLen, OutputText& text);

}  // namespace lwb
