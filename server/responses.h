#pragma once
// Response bodies in OpenAI's shapes (as vLLM fills them): whole completions, stream
// chunks, usage and logprobs, for /v1/completions and /v1/chat/completions.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine_loop.h"
#include "engine/model/tokenizer.h"
#include "server/api_request.h"

namespace lwb::server {

// What one answer says about itself in every chunk.
struct ResponseHead {
  Endpoint endpoint = Endpoint::Completions;
  std::string id;        // "cmpl-…" / "chatcmpl-…"
  int64_t created = 0;   // Unix seconds
  std::string model;     // the served model name
};

ResponseHead makeHead(Endpoint endpoint, RequestId requestId, const std::string& model);

// OpenAI's finish_reason: stop, length, abort (vLLM's spelling for aborted requests).
std::string finishReasonText(FinishReason r);

nlohmann::json usageJson(const RequestTimeline& t);
// The logprobs object for the tokens of one chunk (or the whole answer); null when not asked.
nlohmann::json logprobsJson(Endpoint endpoint, const Tokenizer& tok, const std::vector<TokenDelta>& deltas,
                            bool wanted);

// A whole answer (stream = false).
nlohmann::json completionJson(const ResponseHead& head, const std::string& text, const nlohmann::json& logprobs,
                              const RequestFinishedEvent& fin);

// Stream chunks. The chat stream opens with a role chunk; the last content chunk carries
// finish_reason; the usage chunk (include_usage) has no choices.
nlohmann::json roleChunk(const ResponseHead& head);
nlohmann::json contentChunk(const ResponseHead& head, const std::string& text, const nlohmann::json& logprobs,
                            const std::string& finishReason);
nlohmann::json usageChunk(const ResponseHead& head, const RequestTimeline& t);

// "data: <json>\n\n"
std::string sseEvent(const nlohmann::json& payload);
inline constexpr const char* kSseDone = "data: [DONE]\n\n";

}  // namespace lwb::server
