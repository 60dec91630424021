// The routes that do not generate: health, version, models, tokenize, detokenize, metrics.
#include <chrono>
#include <limits>

#include "engine/common/json.h"
#include "engine/config/knobs.h"
#include "engine/model/model.h"
#include "server/json_fields.h"
#include "server/kv_connector_tcp.h"
#include "server/server_context.h"

namespace lwb::server {
namespace {

using nlohmann::json;

json parseObject(const std::string& body) {
  json doc = parseJsonOrDiscarded(body);
  if (doc.is_discarded()) throw badRequest("the request body is not valid JSON");
  if (!doc.is_object()) throw badRequest("the request body must be a JSON object, found " + describe(doc));
  return doc;
}

void checkModel(const ServerContext& ctx, const json& body) {
  const json* m = field(body, "model");
  if (m && (!m->is_string() || m->get<std::string>() != ctx.modelName))
    throw ApiError{404, "The model `" + (m->is_string() ? m->get<std::string>() : m->dump()) + "` does not exist.",
                   "NotFoundError", "model"};
}

// vLLM's /tokenize: {"prompt", "add_special_tokens"} or {"messages", "add_generation_prompt"}.
json tokenize(const ServerContext& ctx, const std::string& body) {
  const json doc = parseObject(body);
  checkModel(ctx, doc);
  auto model = ctx.loop.model();
  std::vector<int> ids;
  if (field(doc, "messages")) {
    std::vector<ChatMessage> messages;
    const json& list = doc["messages"];
    if (!list.is_array() || list.empty()) throw badRequest("messages: expected a non-empty array", "messages");
    for (size_t i = 0; i < list.size(); ++i) messages.push_back(parseMessage(list[i], i));
    ids = model->encodeChat(messages, optBool(doc, "add_generation_prompt").value_or(true));
  } else {
    const json* prompt = field(doc, "prompt");
    if (!prompt || !prompt->is_string()) throw badRequest("prompt: expected a string (or give messages)", "prompt");
    const bool special = optBool(doc, "add_special_tokens").value_or(true);
    ids = special ? model->encodePrompt(prompt->get<std::string>())
                  : model->tokenizer->encode(prompt->get<std::string>());
  }
  return {{"count", ids.size()}, {std::string(knob::kMaxModelLen), ctx.loop.maxModelLen()}, {"tokens", ids},
          {"token_strs", nullptr}};
}

json detokenize(const ServerContext& ctx, const std::string& body) {
  const json doc = parseObject(body);
  checkModel(ctx, doc);
  auto model = ctx.loop.model();
  const json* tokens = field(doc, "tokens");
  if (!tokens) throw badRequest("tokens: required", "tokens");
  const auto ids = intList(*tokens, "tokens", 0, model->config.vocabSize - 1, true);
  return {{"prompt", model->tokenizer->decode(ids)}};
}

json modelList(const ServerContext& ctx) {
  auto model = ctx.loop.model();
  const int64_t created =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  json card = {{"id", ctx.modelName}, {"object", "model"}, {"created", created}, {"owned_by", "llm-workbench"},
               {"root", model->dir}, {"parent", nullptr}, {std::string(knob::kMaxModelLen), ctx.loop.maxModelLen()}};
  return {{"object", "list"}, {"data", json::array({card})}};
}

// Runs a JSON handler, answering its ApiError (or any failure) as OpenAI's error object.
template <typename F>
httplib::Server::Handler jsonRoute(F f) {
  return [f](const httplib::Request& req, httplib::Response& res) {
    try {
      sendJson(res, 200, f(req));
    } catch (const ApiError& e) {
      sendError(res, e);
    } catch (const std::exception& e) {
      sendError(res, badRequest(e.what()));
    }
  };
}

}  // namespace

void sendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void sendError(httplib::Response& res, const ApiError& e) { sendJson(res, e.status, e.toJson()); }

void addInfoRoutes(httplib::Server& server, ServerContext& ctx) {
  server.Get("/health", [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
  server.Get("/version", jsonRoute([](const httplib::Request&) { return json{{"version", LWB_VERSION}}; }));
  server.Get("/v1/models", jsonRoute([&ctx](const httplib::Request&) { return modelList(ctx); }));
  server.Post("/tokenize", jsonRoute([&ctx](const httplib::Request& req) { return tokenize(ctx, req.body); }));
  server.Post("/detokenize", jsonRoute([&ctx](const httplib::Request& req) { return detokenize(ctx, req.body); }));
  server.Get("/metrics", [&ctx](const httplib::Request&, httplib::Response& res) {
    KvProducerCounts producer;
    if (ctx.kvProducer) producer = {ctx.kvProducer->numHeld(), ctx.kvProducer->numDroppedConnections()};
    res.set_content(ctx.metrics.render(*ctx.loop.snapshot(), ctx.modelName, ctx.kvProducer ? &producer : nullptr),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
}

}  // namespace lwb::server
