#include "server/responses.h"

#include <chrono>
#include <cstdio>

#include "engine/metrics/record_json.h"
#include "engine/model/tokenizer.h"

namespace lwb::server {
namespace {

using nlohmann::json;

json nullIfEmpty(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::string dumpSafe(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json chatLogprobs(const Tokenizer& tok, const std::vector<TokenDelta>& deltas) {
  json content = json::array();
  for (const TokenDelta& d : deltas)
    for (size_t i = 0; i < d.newTokenIds.size() && i < d.newLogprobs.size(); ++i) {
      json top = json::array();
      json chosen = nullptr;
      for (const auto& [id, lp] : d.newLogprobs[i]) {
        top.push_back({{"token", tok.decode({id})}, {"logprob", lp}});
        if (id == d.newTokenIds[i]) chosen = lp;
      }
      content.push_back({{"token", tok.decode({d.newTokenIds[i]})}, {"logprob", chosen}, {"top_logprobs", top}});
    }
  return {{"content", content}};
}

json completionLogprobs(const Tokenizer& tok, const std::vector<TokenDelta>& deltas) {
  json tokens = json::array(), tokenLogprobs = json::array(), top = json::array();
  for (const TokenDelta& d : deltas)
    for (size_t i = 0; i < d.newTokenIds.size() && i < d.newLogprobs.size(); ++i) {
      json alternatives = json::object();
      json chosen = nullptr;
      for (const auto& [id, lp] : d.newLogprobs[i]) {
        alternatives[tok.decode({id})] = lp;
        if (id == d.newTokenIds[i]) chosen = lp;
      }
      tokens.push_back(tok.decode({d.newTokenIds[i]}));
      tokenLogprobs.push_back(chosen);
      top.push_back(alternatives);
    }
  return {{"tokens", tokens}, {"token_logprobs", tokenLogprobs}, {"top_logprobs", top}};
}

json baseChunk(const ResponseHead& h, bool streaming) {
  const bool chat = h.endpoint == Endpoint::ChatCompletions;
  return {{"id", h.id},
          {"object", chat ? (streaming ? "chat.completion.chunk" : "chat.completion") : "text_completion"},
          {"created", h.created},
          {"model", h.model}};
}

}  // namespace

ResponseHead makeHead(Endpoint endpoint, RequestId requestId, const std::string& model) {
  ResponseHead h;
  h.endpoint = endpoint;
  char id[64];
  std::snprintf(id, sizeof id, "%s-%016llx", endpoint == Endpoint::ChatCompletions ? "chatcmpl" : "cmpl",
                static_cast<unsigned long long>(requestId) * 0x9e3779b97f4a7c15ULL);
  h.id = id;
  h.created = std::chrono::duration_cast<std::chrono::seconds>(
                  std::chrono::system_clock::now().time_since_epoch()).count();
  h.model = model;
  return h;
}

std::string finishReasonText(FinishReason r) {
  switch (r) {
    case FinishReason::Stop: return "stop";
    case FinishReason::Length: return "length";
    case FinishReason::None: return "";
    default: return "abort";
  }
}

// OpenAI's usage, and in prompt_tokens_details why the other prompt tokens missed the
// prefix cache (missed_by_reason, diverged_at_token: record_json.h).
json usageJson(const RequestTimeline& t) {
  json details = {{"cached_tokens", t.numCachedPromptTokens}};
  if (t.prefixMiss.accounted) addPrefixMissJson(t.prefixMiss, details, false);
  return {{"prompt_tokens", t.numPromptTokens},
          {"completion_tokens", t.numOutputTokens},
          {"total_tokens", t.numPromptTokens + t.numOutputTokens},
          {"prompt_tokens_details", details}};
}

json logprobsJson(Endpoint endpoint, const Tokenizer& tok, const std::vector<TokenDelta>& deltas, bool wanted) {
  if (!wanted) return nullptr;
  return endpoint == Endpoint::ChatCompletions ? chatLogprobs(tok, deltas) : completionLogprobs(tok, deltas);
}

json completionJson(const ResponseHead& h, const std::string& text, const json& logprobs,
                    const RequestFinishedEvent& fin) {
  json choice = {{"index", 0}, {"logprobs", logprobs},
                 {"finish_reason", nullIfEmpty(finishReasonText(fin.timeline.finishReason))}, {"stop_reason", nullptr}};
  if (h.endpoint == Endpoint::ChatCompletions) choice["message"] = {{"role", "assistant"}, {"content", text}};
  else choice["text"] = text;
  json out = baseChunk(h, false);
  out["choices"] = json::array({choice});
  out["usage"] = usageJson(fin.timeline);
  return out;
}

json roleChunk(const ResponseHead& h) {
  json out = baseChunk(h, true);
  out["choices"] = json::array({{{"index", 0}, {"delta", {{"role", "assistant"}, {"content", ""}}},
                                 {"logprobs", nullptr}, {"finish_reason", nullptr}}});
  return out;
}

json contentChunk(const ResponseHead& h, const std::string& text, const json& logprobs,
                  const std::string& finishReason) {
  json choice = {{"index", 0}, {"logprobs", logprobs}, {"finish_reason", nullIfEmpty(finishReason)}};
  if (h.endpoint == Endpoint::ChatCompletions)
    choice["delta"] = text.empty() && !finishReason.empty() ? json::object() : json{{"content", text}};
  else
    choice["text"] = text;
  if (!finishReason.empty()) choice["stop_reason"] = nullptr;
  json out = baseChunk(h, true);
  out["choices"] = json::array({choice});
  return out;
}

json usageChunk(const ResponseHead& h, const RequestTimeline& t) {
  json out = baseChunk(h, true);
  out["choices"] = json::array();
  out["usage"] = usageJson(t);
  return out;
}

std::string sseEvent(const json& payload) { return "data: " + dumpSafe(payload) + "\n\n"; }

}  // namespace lwb::server
