// /v1/completions and /v1/chat/completions: parse → submit through the hub → answer whole
// or as server-sent events. A client that goes away mid-stream aborts its request.
#include <chrono>

#include "engine/model/model.h"
#include "server/api_request.h"
#include "server/kv_transfer_route.h"
#include "server/responses.h"
#include "server/server_context.h"

namespace lwb::server {
namespace {

using nlohmann::json;
constexpr std::chrono::milliseconds kWaitSlice(100);  // how often a waiting handler looks at shutdown

// "max_tokens: expected ..." → param "max_tokens".
ApiError engineRejection(const std::string& message) {
  const size_t colon = message.find(':');
  std::string param = colon == std::string::npos ? "" : message.substr(0, colon);
  if (param.find(' ') != std::string::npos) param.clear();
  return badRequest(message, param);
}

struct Submitted {
  ApiRequest request;
  std::shared_ptr<const Model> model;
  std::shared_ptr<RequestStream> stream;
  ResponseHead head;
  KvTransferStep kvStep = KvTransferStep::None;
  std::vector<int> promptTokenIds;         // kvStep Prefill: offered once prefilled
  std::shared_ptr<KvHoldRelease> kvHold;   // kvStep Decode: dropped once admitted
};

Submitted submit(ServerContext& ctx, Endpoint endpoint, const std::string& body) {
  Submitted s;
  s.request = parseApiRequest(endpoint, body);
  if (!s.request.model.empty() && s.request.model != ctx.modelName)
    throw ApiError{404, "The model `" + s.request.model + "` does not exist.", "NotFoundError", "model"};
  s.model = ctx.loop.model();
  const int maxLen = ctx.loop.maxModelLen();
  RequestInput input = toRequestInput(s.request, *s.model, maxLen);
  s.kvStep = kvTransferStep(ctx, s.request);
  if (s.kvStep == KvTransferStep::Prefill) s.promptTokenIds = input.promptTokenIds;
  if (s.kvStep == KvTransferStep::Decode) s.kvHold = pullRemotePrefill(ctx, s.request, input);
  try {
    s.stream = ctx.hub.submit(std::move(input));
  } catch (const std::exception& e) {
    throw engineRejection(e.what());
  }
  s.head = makeHead(endpoint, s.stream->id(), ctx.modelName);
  return s;
}

ApiError failure(const RequestTimeline& t) {
  if (t.finishReason == FinishReason::Rejected) return badRequest(t.error.empty() ? "request rejected" : t.error);
  return ApiError{500, "the engine failed: " + t.error, "InternalServerError", {}};
}

bool failed(const RequestTimeline& t) {
  return t.finishReason == FinishReason::Rejected || t.finishReason == FinishReason::Error;
}

void answerWhole(ServerContext& ctx, Submitted& s, httplib::Response& res) {
  std::vector<TokenDelta> deltas;
  std::string text;
  for (;;) {
    RequestStream::Update u = s.stream->wait(kWaitSlice);
    if (!u.deltas.empty() || u.finished) s.kvHold.reset();  // admitted: it holds the blocks itself
    for (TokenDelta& d : u.deltas) {
      text += d.newText;
      deltas.push_back(std::move(d));
    }
    if (!u.finished) continue;  // shutdown aborts open requests, so this ends
    if (failed(u.finished->timeline)) return sendError(res, failure(u.finished->timeline));
    const json lp = logprobsJson(s.head.endpoint, *s.model->tokenizer, deltas, s.request.wantLogprobs);
    json out = completionJson(s.head, text, lp, *u.finished);
    if (s.kvStep == KvTransferStep::Prefill && u.finished->timeline.finishReason != FinishReason::Abort)
      out["kv_transfer_params"] = offerRemoteDecode(ctx, s.promptTokenIds);
    return sendJson(res, 200, out);
  }
}

// One streamed answer; lives as long as httplib's content provider.
struct StreamState {
  Submitted s;
  EngineLoop* loop = nullptr;
  bool sentRole = false, finished = false;

  // Writes what one update brings; false when the client is gone.
  bool write(httplib::DataSink& sink, const RequestStream::Update& u) {
    auto put = [&sink](const std::string& data) { return sink.write(data.data(), data.size()); };
    if (u.finished && failed(u.finished->timeline))
      return put(sseEvent(failure(u.finished->timeline).toJson())) && put(kSseDone);
    std::string text;
    for (const TokenDelta& d : u.deltas) text += d.newText;
    const std::string reason = u.finished ? finishReasonText(u.finished->timeline.finishReason) : "";
    if (!text.empty() || !reason.empty() || (s.request.wantLogprobs && !u.deltas.empty())) {
      const json lp = logprobsJson(s.head.endpoint, *s.model->tokenizer, u.deltas, s.request.wantLogprobs);
      if (!put(sseEvent(contentChunk(s.head, text, lp, reason)))) return false;
    }
    if (!u.finished) return true;
    if (s.request.includeUsage && !put(sseEvent(usageChunk(s.head, u.finished->timeline)))) return false;
    return put(kSseDone);
  }

  bool provide(httplib::DataSink& sink) {
    if (!sentRole && s.head.endpoint == Endpoint::ChatCompletions) {
      const std::string role = sseEvent(roleChunk(s.head));
      if (!sink.write(role.data(), role.size())) return false;
    }
    sentRole = true;
    RequestStream::Update u = s.stream->wait(kWaitSlice);
    if (u.deltas.empty() && !u.finished) return true;  // httplib calls again; the wait paces it
    s.kvHold.reset();  // admitted: it holds the blocks itself
    finished = u.finished.has_value();
    if (!write(sink, u)) return false;
    if (finished) sink.done();
    return true;
  }
};

void answerStream(ServerContext& ctx, Submitted s, httplib::Response& res) {
  auto state = std::make_shared<StreamState>();
  state->s = std::move(s);
  state->loop = &ctx.loop;
  res.set_header("Cache-Control", "no-cache");
  ++ctx.numStreams;
  res.set_chunked_content_provider(
      "text/event-stream", [state](size_t, httplib::DataSink& sink) { return state->provide(sink); },
      [state, &ctx](bool) {
        if (!state->finished) state->loop->abort(state->s.stream->id());  // hung up: free its blocks
        --ctx.numStreams;
      });
}

httplib::Server::Handler completionHandler(ServerContext& ctx, Endpoint endpoint) {
  return [&ctx, endpoint](const httplib::Request& req, httplib::Response& res) {
    try {
      if (ctx.stopping) throw ApiError{503, "the server is shutting down", "ServiceUnavailableError", {}};
      Submitted s = submit(ctx, endpoint, req.body);
      if (s.request.stream) answerStream(ctx, std::move(s), res);
      else answerWhole(ctx, s, res);
    } catch (const ApiError& e) {
      sendError(res, e);
    } catch (const std::exception& e) {
      sendError(res, badRequest(e.what()));
    }
  };
}

}  // namespace

void addCompletionRoutes(httplib::Server& server, ServerContext& ctx) {
  server.Post("/v1/completions", completionHandler(ctx, Endpoint::Completions));
  server.Post("/v1/chat/completions", completionHandler(ctx, Endpoint::ChatCompletions));
}

}  // namespace lwb::server
