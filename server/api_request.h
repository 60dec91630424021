#pragma once
// A /v1/completions or /v1/chat/completions body, parsed and validated field by field
// (OpenAI's and vLLM's names), then turned into the engine's RequestInput. Parsing
// needs no model, so the fuzzer drives it alone; tokenization is the second step.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "engine/model/chat_template.h"
#include "server/api_error.h"

namespace lwb {
struct Model;
}

namespace lwb::server {

enum class Endpoint { Completions, ChatCompletions };

struct ApiRequest {
  Endpoint endpoint = Endpoint::Completions;
  std::string model;                      // as sent; "" when absent
  std::optional<std::string> promptText;  // completions: a string prompt
  std::vector<int> promptTokenIds;        // completions: a token-id prompt
  std::vector<ChatMessage> messages;      // chat
  nlohmann::json chatTemplateKwargs = nlohmann::json::object();  // chat: vLLM's chat_template_kwargs
  // Sampling as sent; absent fields take the model's generation_config defaults later.
  std::optional<float> temperature, topP, minP, repetitionPenalty;
  std::optional<int> topK, maxTokens;
  SamplingParams sampling;                // stop, stop_token_ids, seed, ignore_eos, logprobs
  int priority = 0;
  bool stream = false;
  bool includeUsage = false;              // stream_options.include_usage
  bool wantLogprobs = false;              // completions: logprobs given; chat: logprobs true
  nlohmann::json kvTransferParams;        // vLLM's kv_transfer_params (P/D); null when absent
};

// Throws ApiError (400) naming the field, the value and what is allowed.
ApiRequest parseApiRequest(Endpoint endpoint, std::string_view body);

// Tokenizes (chat through the model's template), fills defaults and checks the length
// against max_model_len. Throws ApiError (400).
RequestInput toRequestInput(const ApiRequest& request, const Model& model, int maxModelLen);

}  // namespace lwb::server
