#pragma once
// What the remote tests share: a misbehaving HTTP server for failure cases, a closed
// port, the synthetic workload on the bundled tokenizer and the runner's options for a
// loopback server. Header-only: httplib is.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>

#include <atomic>
#include <limits>
#include <thread>

#include "common/bundled_model.h"
#include "engine/common/error.h"
#include "engine/config/engine_config.h"
#include "engine/engine_loop.h"
#include "engine/model/tokenizer.h"
#include "remote/remote_bench.h"
#include "server/api_server.h"

namespace lwb::test {

// A port nothing listens on: bound once, then closed.
inline int closedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// A misbehaving server written for the failure cases; stops in bounded time.
struct FakeServer {
  httplib::Server http;
  std::thread thread;
  std::atomic<bool> stopping{false};
  int port = 0;

  void start() {
    http.Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"object":"list","data":[{"id":"fake","object":"model"}]})", "application/json");
    });
    port = http.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { http.listen_after_bind(); });
    for (int i = 0; i < 500 && !http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~FakeServer() {
    stopping = true;
    http.stop();
    if (thread.joinable()) thread.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

template <class F>
inline bool throwsError(F f) {
  try {
    f();
  } catch (const lwb::Error&) {
    return true;
  }
  return false;
}

inline std::vector<SyntheticRequest> remoteWorkload(int n, double rate, int outputLen, int sharedPrefix = 0, int inputLen = 24) {
  const Tokenizer& tok = *bundledModel()->tokenizer;
  WorkloadOptions w;
  w.numPrompts = n;
  w.requestRate = rate;
  w.inputLen = inputLen;
  w.outputLen = outputLen;
  w.ignoreEos = true;
  w.sharedPrefixLen = sharedPrefix;
  w.seed = 3;
  return makeWorkload(w, tok.ordinaryIds(), tok.bosId());
}

inline remote::RemoteBenchOptions optionsFor(const std::string& url, double readTimeout = 30) {
  remote::RemoteBenchOptions o;
  o.client.url = url;
  o.client.readTimeoutSeconds = readTimeout;
  o.model = "austen";
  o.scrapeIntervalSeconds = 0.2;
  return o;
}

// The server library in front of the bundled model on an ephemeral loopback port, as
// the remote tests start it (in init() or initTestCase()); stop() in the matching cleanup.
struct LoopbackServer {
  std::unique_ptr<EngineLoop> loop;
  std::unique_ptr<server::ApiServer> server;
  std::string url;

  void start(const std::shared_ptr<const Model>& model) {
    loop = std::make_unique<EngineLoop>(model, cpuTestConfig());
    server::ServerOptions o;
    o.port = 0;
    o.servedModelName = "austen";
    server = std::make_unique<server::ApiServer>(*loop, o);
    url = "http://127.0.0.1:" + std::to_string(server->start());
  }
  void stop() {
    server.reset();
    loop.reset();
  }
};

}  // namespace lwb::test
