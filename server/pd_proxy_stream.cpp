#include "server/pd_proxy_stream.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "server/server_context.h"

namespace lwb::server {
namespace {

// One upstream request on a thread of its own: its status as soon as the headers come,
// then its body's chunks, queued for the client's side.
struct Relay {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::string> chunks;
  int status = 0;          // 0 until the headers came
  bool done = false;
  std::string error;       // the connection failed before any answer
  std::atomic<bool> cancel{false};
  std::thread thread;

  void run(const std::string& url, UpstreamTimeouts t, httplib::Request req) {
    httplib::Client upstream(url);
    upstream.set_connection_timeout(t.connectSeconds, 0);
    upstream.set_read_timeout(t.readSeconds, 0);
    upstream.set_write_timeout(t.readSeconds, 0);
    req.response_handler = [this](const httplib::Response& r) {
      std::lock_guard lock(mu);
      status = r.status;
      cv.notify_all();
      return true;
    };
    req.content_receiver = [this](const char* data, size_t n, uint64_t, uint64_t) {
      std::lock_guard lock(mu);
      chunks.emplace_back(data, n);
      cv.notify_all();
      return !cancel.load();
    };
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    const bool ok = upstream.send(req, res, err);
    std::lock_guard lock(mu);
    if (!ok && status == 0) error = httplib::to_string(err);
    done = true;
    cv.notify_all();
  }
  std::string drainAll() {
    std::unique_lock lock(mu);
    cv.wait(lock, [this] { return done; });
    std::string all;
    for (const std::string& c : chunks) all += c;
    return all;
  }
  ~Relay() {
    cancel = true;
    if (thread.joinable()) thread.join();
  }
};

}  // namespace

void relayStream(const std::string& upstreamUrl, UpstreamTimeouts timeouts, const std::string& path,
                 const httplib::Headers& headers, const std::string& body, httplib::Response& res) {
  auto relay = std::make_shared<Relay>();
  httplib::Request req;
  req.method = "POST";
  req.path = path;
  req.headers = headers;
  req.headers.emplace("Content-Type", "application/json");
  req.body = body;
  Relay* r = relay.get();
  relay->thread = std::thread([r, upstreamUrl, timeouts, req] { r->run(upstreamUrl, timeouts, req); });
  {
    std::unique_lock lock(relay->mu);
    relay->cv.wait(lock, [&] { return relay->status != 0 || relay->done; });
  }
  if (relay->status == 0) {
    relay->thread.join();
    return sendError(res, ApiError{502, "the decode instance at " + upstreamUrl + " did not answer: " + relay->error,
                                   "BadGatewayError", {}});
  }
  if (relay->status != 200) {
    res.status = relay->status;
    return res.set_content(relay->drainAll(), "application/json");
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider("text/event-stream", [relay](size_t, httplib::DataSink& sink) {
    std::deque<std::string> ready;
    bool done;
    {
      std::unique_lock lock(relay->mu);
      relay->cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return !relay->chunks.empty() || relay->done; });
      ready.swap(relay->chunks);
      done = relay->done;
    }
    for (const std::string& chunk : ready)
      if (!sink.write(chunk.data(), chunk.size())) return false;  // the client hung up
    if (done) sink.done();
    return true;
  });
}

}  // namespace lwb::server
