#pragma once
// A thin RAII layer over libzmq's C API for the KV-event publisher and subscriber:
// multipart messages as byte vectors, errors as lwb::Error naming the endpoint.
// A socket belongs to one thread (ZeroMQ's rule).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lwb::remote {

using ZmqMessage = std::vector<std::vector<uint8_t>>;  // frames

class ZmqContext {
 public:
  ZmqContext();
  ~ZmqContext();
  ZmqContext(const ZmqContext&) = delete;
  ZmqContext& operator=(const ZmqContext&) = delete;
  void* handle() const { return ctx_; }

 private:
  void* ctx_;
};

class ZmqSocket {
 public:
  ZmqSocket(ZmqContext& ctx, int type);  // ZMQ_PUB, ZMQ_SUB, ZMQ_ROUTER, ZMQ_DEALER
  ~ZmqSocket();                          // linger 0: nothing waits on a dead peer
  ZmqSocket(const ZmqSocket&) = delete;
  ZmqSocket& operator=(const ZmqSocket&) = delete;

  void bind(const std::string& endpoint);
  void connect(const std::string& endpoint);
  void setOption(int option, int value);
  void setOption(int option, const std::string& value);
  std::string lastEndpoint() const;  // the bound address, wildcard port resolved
  // Sends all frames; false when it would block (a full queue), never waits.
  bool send(const ZmqMessage& message);
  // Waits up to timeoutMs (-1: forever) for one message; nullopt on timeout.
  std::optional<ZmqMessage> receive(int timeoutMs);
  void* handle() const { return sock_; }

 private:
  void* sock_;
  std::string endpoint_;
};

// vLLM's rule for the publisher's address: bind when it has a wildcard ("*", "::") or
// is ipc:// or inproc://, else connect to a subscriber that binds.
bool zmqEndpointBinds(const std::string& endpoint);

}  // namespace lwb::remote
