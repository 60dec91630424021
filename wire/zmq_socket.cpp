#include "wire/zmq_socket.h"

#include <zmq.h>

#include "engine/common/error.h"

namespace lwb::remote {

namespace {
[[noreturn]] void fail(const std::string& what) { throw Error(what + ": " + zmq_strerror(zmq_errno())); }
}  // namespace

ZmqContext::ZmqContext() : ctx_(zmq_ctx_new()) {
  if (!ctx_) fail("ZeroMQ context");
}

ZmqContext::~ZmqContext() { zmq_ctx_term(ctx_); }

ZmqSocket::ZmqSocket(ZmqContext& ctx, int type) : sock_(zmq_socket(ctx.handle(), type)) {
  if (!sock_) fail("ZeroMQ socket");
  setOption(ZMQ_LINGER, 0);
}

ZmqSocket::~ZmqSocket() { zmq_close(sock_); }

void ZmqSocket::bind(const std::string& endpoint) {
  endpoint_ = endpoint;
  if (zmq_bind(sock_, endpoint.c_str()) != 0) fail("ZeroMQ bind " + endpoint);
}

void ZmqSocket::connect(const std::string& endpoint) {
  endpoint_ = endpoint;
  if (zmq_connect(sock_, endpoint.c_str()) != 0) fail("ZeroMQ connect " + endpoint);
}

void ZmqSocket::setOption(int option, int value) {
  if (zmq_setsockopt(sock_, option, &value, sizeof value) != 0) fail("ZeroMQ option " + std::to_string(option));
}

void ZmqSocket::setOption(int option, const std::string& value) {
  if (zmq_setsockopt(sock_, option, value.data(), value.size()) != 0)
    fail("ZeroMQ option " + std::to_string(option));
}

std::string ZmqSocket::lastEndpoint() const {
  char buf[256];
  size_t size = sizeof buf;
  if (zmq_getsockopt(sock_, ZMQ_LAST_ENDPOINT, buf, &size) != 0) fail("ZeroMQ last endpoint of " + endpoint_);
  return std::string(buf, size > 0 ? size - 1 : 0);  // size counts the NUL
}

bool ZmqSocket::send(const ZmqMessage& message) {
  for (size_t i = 0; i < message.size(); ++i) {
    const int more = i + 1 < message.size() ? ZMQ_SNDMORE : 0;
    const void* data = message[i].empty() ? static_cast<const void*>("") : message[i].data();
    if (zmq_send(sock_, data, message[i].size(), ZMQ_DONTWAIT | more) < 0) {
      if (zmq_errno() == EAGAIN && i == 0) return false;  // nothing sent: a full queue
      fail("ZeroMQ send on " + endpoint_);
    }
  }
  return true;
}

std::optional<ZmqMessage> ZmqSocket::receive(int timeoutMs) {
  zmq_pollitem_t item{sock_, 0, ZMQ_POLLIN, 0};
  const int n = zmq_poll(&item, 1, timeoutMs);
  if (n < 0) fail("ZeroMQ poll on " + endpoint_);
  if (n == 0) return std::nullopt;
  ZmqMessage out;
  int more = 1;
  while (more) {
    zmq_msg_t part;
    zmq_msg_init(&part);
    if (zmq_msg_recv(&part, sock_, 0) < 0) {
      zmq_msg_close(&part);
      fail("ZeroMQ receive on " + endpoint_);
    }
    const auto* data = static_cast<const uint8_t*>(zmq_msg_data(&part));
    out.emplace_back(data, data + zmq_msg_size(&part));
    more = zmq_msg_more(&part);
    zmq_msg_close(&part);
  }
  return out;
}

bool zmqEndpointBinds(const std::string& endpoint) {
  return endpoint.find('*') != std::string::npos || endpoint.find("::") != std::string::npos ||
         endpoint.rfind("ipc://", 0) == 0 || endpoint.rfind("inproc://", 0) == 0;
}

}  // namespace lwb::remote
