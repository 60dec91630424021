#pragma once
// What the P/D-across-processes tests share (tst_server_pd*): a prefill `serve`
// (kv_producer) and a decode `serve` (kv_consumer), each an ApiServer in front of its own
// EngineLoop on loopback ports, the proxy in front of both, and the checks that every
// pool is back to idle. In-process, as the other server tests run their servers: the
// two "processes" share nothing but sockets. Header-only (links lwb_server).
#include <QtTest>

#include <memory>
#include <string>

#include "common/server_harness.h"
#include "engine/config/kv_transfer_config.h"
#include "server/pd_proxy.h"

namespace lwb::test {

// Seconds small enough for a test, large enough for a loaded machine.
inline server::KvConnectorOptions quickKvOptions() {
  server::KvConnectorOptions o;
  o.holdTimeoutSeconds = 2;
  o.connectTimeoutSeconds = 2;
  o.ioTimeoutSeconds = 20;
  o.importTimeoutSeconds = 20;
  return o;
}

inline EngineConfig pdRoleConfig(const char* role, EngineConfig c = cpuTestConfig()) {
  c.kvTransfer = parseKvTransferConfig(std::string(R"({"kv_connector": "TcpConnector", "kv_port": 0, "kv_role": ")") +
                                       role + "\"}");
  return c;
}

struct PdHarness {
  std::shared_ptr<const Model> model = bundledModel();
  std::unique_ptr<EngineLoop> prefillLoop, decodeLoop;
  std::unique_ptr<server::ApiServer> prefill, decode;
  std::unique_ptr<server::PdProxy> proxy;

  ~PdHarness() { stop(); }

  static std::unique_ptr<server::ApiServer> serveOn(EngineLoop& loop) {
    server::ServerOptions o;
    o.port = 0;
    o.servedModelName = "austen";
    o.kvConnector = quickKvOptions();
    auto s = std::make_unique<server::ApiServer>(loop, o);
    s->start();
    return s;
  }

  void start(const EngineConfig& decodeConfig = pdRoleConfig("kv_consumer")) {
    stop();
    prefillLoop = std::make_unique<EngineLoop>(model, pdRoleConfig("kv_producer"));
    decodeLoop = std::make_unique<EngineLoop>(model, decodeConfig);
    prefill = serveOn(*prefillLoop);
    decode = serveOn(*decodeLoop);
    server::PdProxyOptions p;
    p.prefillUrl = prefill->address();
    p.decodeUrl = decode->address();
    p.port = 0;
    p.upstreamTimeoutSeconds = 120;
    proxy = std::make_unique<server::PdProxy>(p);
    QVERIFY(proxy->start() > 0);
  }

  void stop() {
    proxy.reset();
    prefill.reset();
    decode.reset();
    prefillLoop.reset();
    decodeLoop.reset();
  }

  static httplib::Client clientOf(const std::string& address) {
    httplib::Client c(address);
    c.set_read_timeout(120, 0);
    c.set_connection_timeout(10, 0);
    return c;
  }
  httplib::Result post(const std::string& address, const std::string& path, const json& body) const {
    return clientOf(address).Post(path.c_str(), body.dump(), "application/json");
  }

  // No request, no owned block (a KV hold owns its blocks) in this loop's pool.
  static bool idle(const EngineLoop& loop) {
    auto s = loop.snapshot();
    size_t owned = 0;
    for (const KvBlockInfo& b : s->kvBlocks) owned += b.kind == KvBlockInfo::Kind::Owned;
    return s->numRunning == 0 && s->numWaiting == 0 && owned == 0;
  }
  // Waits (bounded) until both pools, the servers and the producer's holds are idle.
  bool waitIdle() const {
    for (int i = 0; i < 1000; ++i) {
      const bool p = !prefillLoop || (idle(*prefillLoop) && (!prefill || (prefill->numOpenRequests() == 0 &&
                                                                          prefill->numKvTransfersHeld() == 0)));
      const bool d = !decodeLoop || (idle(*decodeLoop) && (!decode || decode->numOpenRequests() == 0));
      if (p && d) return true;
      QThread::msleep(10);
    }
    return false;
  }
};

// A prompt of several KV blocks (the bundled model's block size is 16 tokens).
inline std::string longPrompt() {
  return "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in "
         "want of a wife. However little known the feelings or views of such a man may be on his first entering a "
         "neighbourhood, this truth is so well fixed in the minds of the surrounding families";
}

}  // namespace lwb::test
