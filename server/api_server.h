#pragma once
// The OpenAI-compatible HTTP front-end: /v1/models, /v1/completions,
// /v1/chat/completions, /tokenize, /detokenize, /health, /version and Prometheus
// /metrics, served by cpp-httplib on its own threads. It reaches the engine only through
// EngineLoop (submit, abort, snapshots, an event subscription), like the window, so its
// requests show up in every view (tag "api").
#include <cstddef>
#include <memory>
#include <string>

#include "server/kv_connector_tcp.h"

namespace lwb {
class EngineLoop;
}

namespace lwb::server {

class ServerMetrics;

struct ServerOptions {
  std::string host = "127.0.0.1";  // loopback unless asked otherwise
  int port = 8000;                 // 0 = an ephemeral port (tests)
  std::string servedModelName;     // "" = the model folder's name
  std::string apiKey;              // "" = no authentication; else every /v1 route needs Bearer
  size_t maxBodyBytes = 8u << 20;  // larger bodies get 413
  int numThreads = 128;            // connections served at once (a stream holds one)
  int readTimeoutSeconds = 30;     // a slow or idle client is dropped after this
  int writeTimeoutSeconds = 30;
  int keepAliveSeconds = 5;
  // With the engine's kv_transfer_config a TcpConnector (P/D across processes): its
  // timeouts (kv_connector_tcp.h).
  KvConnectorOptions kvConnector;
};

class ApiServer {
 public:
  ApiServer(EngineLoop& loop, ServerOptions options);
  ~ApiServer();  // stop()
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Binds and serves on a background thread; returns the bound port. Throws lwb::Error
  // naming the address when it cannot bind.
  int start();
  // Stops accepting, aborts this server's in-flight requests, joins every thread.
  void stop();
  bool isRunning() const;
  std::string address() const;     // "http://127.0.0.1:8000"
  const std::string& modelName() const;
  const ServerMetrics& metrics() const;
  size_t numOpenRequests() const;  // submitted and not yet finished
  // P/D across processes: the kv_producer's bound KV port (0 when not a producer), the
  // transfers it holds blocks for, and the connections it dropped (malformed, peer gone).
  int kvPort() const;
  int numKvTransfersHeld() const;
  int64_t numKvDroppedConnections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lwb::server
