#pragma once
// The server's one subscription to the engine's events: a dispatcher thread routes each
// API request's token deltas and its finish to that request's stream (an HTTP handler
// sleeps on the stream's condition variable) and feeds every step and every finished
// request, whatever its front-end, to ServerMetrics.
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/engine_loop.h"
#include "server/server_metrics.h"

namespace lwb::server {

class RequestStream {
 public:
  struct Update {
    std::vector<TokenDelta> deltas;
    std::optional<RequestFinishedEvent> finished;  // the last update of the request
  };
  explicit RequestStream(RequestId id) : id_(id) {}
  RequestId id() const { return id_; }
  // Waits up to `timeout` for news; an empty update when none came.
  Update wait(std::chrono::milliseconds timeout);
  void deliver(const TokenDelta& d);
  void deliver(const RequestFinishedEvent& f);

 private:
  RequestId id_;
  std::mutex mu_;
  std::condition_variable cv_;
  Update pending_;
};

class RequestHub {
 public:
  RequestHub(EngineLoop& loop, ServerMetrics& metrics);
  ~RequestHub();
  RequestHub(const RequestHub&) = delete;
  RequestHub& operator=(const RequestHub&) = delete;

  // Submits through the loop (throws its lwb::Error for an invalid request) and returns
  // the request's stream; no event of it can be missed.
  std::shared_ptr<RequestStream> submit(RequestInput input);
  size_t numOpen() const;
  void abortOpen();  // every request still open (server shutdown)

 private:
  void run();
  void route(EngineEvent& e);

  EngineLoop& loop_;
  ServerMetrics& metrics_;
  std::shared_ptr<EventSubscriber> events_;
  mutable std::mutex mu_;  // held across submit + registration, and while routing
  std::map<RequestId, std::shared_ptr<RequestStream>> open_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace lwb::server
