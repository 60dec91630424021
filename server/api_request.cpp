#include "server/api_request.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/common/json.h"
#include "engine/config/knobs.h"
#include "engine/model/model.h"
#include "server/json_fields.h"

namespace lwb::server {
namespace {

using nlohmann::json;

std::vector<ChatMessage> parseMessages(const json& body) {
  const json* list = field(body, "messages");
  if (!list) throw badRequest("messages: required for chat completions", "messages");
  if (!list->is_array() || list->empty())
    throw badRequest("messages: expected a non-empty array of {role, content}", "messages");
  std::vector<ChatMessage> out;
  for (size_t i = 0; i < list->size(); ++i) out.push_back(parseMessage((*list)[i], i));
  return out;
}

void parsePrompt(const json& body, ApiRequest& r) {
  const json* p = field(body, "prompt");
  if (!p) throw badRequest("prompt: required for completions", "prompt");
  if (p->is_array() && p->size() == 1 && (*p)[0].is_string()) p = &(*p)[0];  // ["text"]
  if (p->is_string()) {
    r.promptText = p->get<std::string>();
    if (r.promptText->empty()) throw badRequest("prompt: empty; expected text or token ids", "prompt");
    return;
  }
  if (p->is_array() && !p->empty() && (*p)[0].is_number_integer()) {
    r.promptTokenIds = intList(*p, "prompt", 0, std::numeric_limits<int>::max());
    return;
  }
  throw badRequest("prompt: expected a string or an array of token ids (one prompt per request), found " +
                       describe(*p),
                   "prompt");
}

void parseLogprobs(const json& body, ApiRequest& r) {
  if (r.endpoint == Endpoint::Completions) {
    if (auto k = optInt(body, "logprobs", 0, 20)) {
      r.wantLogprobs = true;
      r.sampling.logprobs = std::max(1, *k);  // 0 still asks for the sampled token's logprob
    }
    return;
  }
  r.wantLogprobs = optBool(body, "logprobs").value_or(false);
  const auto top = optInt(body, "top_logprobs", 0, 20);
  if (top && !r.wantLogprobs) throw badRequest("top_logprobs: needs \"logprobs\": true", "top_logprobs");
  if (r.wantLogprobs) r.sampling.logprobs = std::max(1, top.value_or(0));
}

void parseUnsupported(const json& body) {
  if (auto n = optInt(body, "n", 1, std::numeric_limits<int>::max()); n && *n != 1)
    throw badRequest("n: " + std::to_string(*n) + " is not supported; expected 1", "n");
  for (const char* name : {"presence_penalty", "frequency_penalty"})
    if (auto v = optNumber(body, name, -2, 2); v && *v != 0)
      throw badRequest(std::string(name) + ": " + formatNumber(*v) + " is not supported; expected 0", name);
}

void parseStreaming(const json& body, ApiRequest& r) {
  r.stream = optBool(body, "stream").value_or(false);
  const json* opts = field(body, "stream_options");
  if (!opts) return;
  if (!opts->is_object()) throw badRequest("stream_options: expected an object", "stream_options");
  if (!r.stream) throw badRequest("stream_options: only allowed with \"stream\": true", "stream_options");
  r.includeUsage = optBool(*opts, "include_usage", "stream_options.include_usage").value_or(false);
}

void parseSampling(const json& body, ApiRequest& r) {
  const double inf = std::numeric_limits<double>::infinity();
  r.temperature = optFloat(body, "temperature", 0, inf);
  r.topP = optFloat(body, "top_p", 0, 1, /*lowOpen=*/true);
  r.topK = optInt(body, "top_k", -1, std::numeric_limits<int>::max());
  r.minP = optFloat(body, "min_p", 0, 1);
  r.repetitionPenalty = optFloat(body, "repetition_penalty", 0, inf, /*lowOpen=*/true);
  r.maxTokens = optInt(body, r.endpoint == Endpoint::ChatCompletions && field(body, "max_completion_tokens")
                                 ? "max_completion_tokens" : "max_tokens", 1, std::numeric_limits<int>::max());
  if (auto seed = optInt64(body, "seed")) r.sampling.seed = uint64_t(*seed);
  r.sampling.ignoreEos = optBool(body, "ignore_eos").value_or(false);
  r.sampling.minTokens = optInt(body, "min_tokens", 0, std::numeric_limits<int>::max()).value_or(0);
  r.sampling.stop = stopStrings(body);
  if (const json* ids = field(body, "stop_token_ids"))
    r.sampling.stopTokenIds = intList(*ids, "stop_token_ids", 0, std::numeric_limits<int>::max(), true);
  r.priority = optInt(body, "priority", std::numeric_limits<int>::min(), std::numeric_limits<int>::max()).value_or(0);
}

}  // namespace

ApiRequest parseApiRequest(Endpoint endpoint, std::string_view body) {
  const json doc = parseJsonOrDiscarded(body);
  if (doc.is_discarded()) throw badRequest("the request body is not valid JSON");
  if (!doc.is_object()) throw badRequest("the request body must be a JSON object, found " + describe(doc));
  ApiRequest r;
  r.endpoint = endpoint;
  if (const json* m = field(doc, "model")) {
    if (!m->is_string()) throw badRequest("model: expected a string, found " + describe(*m), "model");
    r.model = m->get<std::string>();
  }
  if (endpoint == Endpoint::Completions) {
    parsePrompt(doc, r);
  } else {
    r.messages = parseMessages(doc);
    if (const json* kw = field(doc, "chat_template_kwargs")) {
      if (!kw->is_object())
        throw badRequest("chat_template_kwargs: expected an object, found " + describe(*kw), "chat_template_kwargs");
      r.chatTemplateKwargs = *kw;
    }
  }
  parseSampling(doc, r);
  parseLogprobs(doc, r);
  parseStreaming(doc, r);
  if (const json* kv = field(doc, "kv_transfer_params"); kv && !kv->is_null()) {
    if (!kv->is_object())
      throw badRequest("kv_transfer_params: expected an object, found " + describe(*kv), "kv_transfer_params");
    r.kvTransferParams = *kv;
  }
  parseUnsupported(doc);
  return r;
}

RequestInput toRequestInput(const ApiRequest& r, const Model& model, int maxModelLen) {
  RequestInput in;
  if (r.endpoint == Endpoint::ChatCompletions) in.promptTokenIds = model.encodeChat(r.messages, true, r.chatTemplateKwargs);
  else if (r.promptText) in.promptTokenIds = model.encodePrompt(*r.promptText);
  else in.promptTokenIds = r.promptTokenIds;
  const int vocab = model.config.vocabSize;
  for (int id : in.promptTokenIds)
    if (id >= vocab)
      throw badRequest("prompt: token id " + std::to_string(id) + " is outside the vocabulary; expected 0.." +
                           std::to_string(vocab - 1), "prompt");
  const int numPrompt = int(in.promptTokenIds.size());
  const std::string what = r.endpoint == Endpoint::ChatCompletions ? "messages" : "prompt";
  if (numPrompt >= maxModelLen)
    throw badRequest("This model's maximum context length (" + std::string(knob::kMaxModelLen) + ") is " + std::to_string(maxModelLen) +
                         " tokens; the " + what + " has " + std::to_string(numPrompt) +
                         " tokens. Please reduce the length of the " + what + ".", what);
  if (r.maxTokens && numPrompt + int64_t(*r.maxTokens) > maxModelLen)
    throw badRequest("This model's maximum context length (" + std::string(knob::kMaxModelLen) + ") is " + std::to_string(maxModelLen) +
                         " tokens. However, you requested " + std::to_string(numPrompt + int64_t(*r.maxTokens)) +
                         " tokens (" + std::to_string(numPrompt) + " in the " + what + ", " +
                         std::to_string(*r.maxTokens) + " in the completion). Please reduce the length of the " +
                         what + " or completion.", "max_tokens");
  const GenerationDefaults& d = model.generationDefaults;
  in.sampling = r.sampling;
  in.sampling.temperature = r.temperature.value_or(d.temperature.value_or(1.0f));
  in.sampling.topP = r.topP.value_or(d.topP.value_or(1.0f));
  in.sampling.topK = r.topK.value_or(d.topK.value_or(0));
  in.sampling.minP = r.minP.value_or(d.minP.value_or(0.0f));
  in.sampling.repetitionPenalty = r.repetitionPenalty.value_or(d.repetitionPenalty.value_or(1.0f));
  in.sampling.maxTokens = r.maxTokens.value_or(maxModelLen - numPrompt);  // vLLM: the rest of the context
  in.priority = r.priority;
  in.tag = "api";
  return in;
}

}  // namespace lwb::server
