#pragma once
// What every route handler shares: the engine's door, the request hub and the metrics.
#include <atomic>
#include <string>

#include <httplib.h>

#include "engine/engine_loop.h"
#include "server/api_error.h"
#include "server/api_server.h"
#include "server/request_hub.h"
#include "server/server_metrics.h"

namespace lwb::server {

class KvProducer;
class KvConsumer;

struct ServerContext {
  EngineLoop& loop;
  RequestHub& hub;
  ServerMetrics& metrics;
  ServerOptions options;
  std::string modelName;
  std::atomic<bool> stopping{false};
  std::atomic<int> numStreams{0};  // SSE responses still being written
  // P/D across processes (kv_transfer_config's TcpConnector): at most one is set.
  KvProducer* kvProducer = nullptr;
  KvConsumer* kvConsumer = nullptr;
};

void sendJson(httplib::Response& res, int status, const nlohmann::json& body);
void sendError(httplib::Response& res, const ApiError& e);

// /health, /version, /v1/models, /tokenize, /detokenize, /metrics (routes.cpp).
void addInfoRoutes(httplib::Server& server, ServerContext& ctx);
// /v1/completions and /v1/chat/completions (completion_route.cpp).
void addCompletionRoutes(httplib::Server& server, ServerContext& ctx);

}  // namespace lwb::server
