#include "server/kv_transfer_frame.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/common/error.h"

namespace lwb::server {
namespace {

template <typename T>
void put(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(char((uint64_t(v) >> (8 * i)) & 0xFF));
}

template <typename T>
T get(const char* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(uint8_t(p[i])) << (8 * i);
  return T(v);
}

constexpr size_t kBlocksFixedBytes = 16;  // num_blocks, block_bytes, block_size, reserved

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
  return buf;
}

// Reads exactly n bytes; false when the peer closed before the first byte (and allowEof).
bool readExactly(int fd, char* out, size_t n, bool allowEof, const char* what) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::recv(fd, out + got, n - got, 0);
    if (r == 0) {
      if (got == 0 && allowEof) return false;
      throw Error("kv transfer: the connection closed after " + std::to_string(got) + " of the " +
                  std::to_string(n) + " bytes of a frame's " + what + " (truncated frame)");
    }
    if (r < 0) {
      if (errno == EINTR) continue;
      const bool timeout = errno == EAGAIN || errno == EWOULDBLOCK;
      throw Error(std::string("kv transfer: reading a frame's ") + what + ": " +
                  (timeout ? "timed out" : std::strerror(errno)));
    }
    got += size_t(r);
  }
  return true;
}

addrinfo* resolve(const std::string& host, int port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) return nullptr;
  return res;
}

}  // namespace

std::string encodeKvFrame(const KvFrame& f) {
  std::string body;
  if (f.type == KvFrameType::Blocks) {
    put<uint32_t>(body, uint32_t(f.hashes.size()));
    put<uint32_t>(body, f.blockBytes);
    put<uint32_t>(body, f.blockSize);
    put<uint32_t>(body, 0);
    for (uint64_t h : f.hashes) put<uint64_t>(body, h);
    body += f.data;
  } else if (f.type == KvFrameType::Error) {
    body = f.data;
  }
  std::string out;
  out.reserve(kKvFrameHeaderBytes + body.size());
  put<uint32_t>(out, kKvFrameMagic);
  put<uint16_t>(out, kKvFrameVersion);
  put<uint16_t>(out, uint16_t(f.type));
  put<uint64_t>(out, body.size());
  put<uint64_t>(out, f.requestId);
  return out + body;
}

KvFrameHeader decodeKvFrameHeader(const char* p) {
  const uint32_t magic = get<uint32_t>(p);
  check(magic == kKvFrameMagic,
        "kv transfer: bad magic " + hex(magic) + " (expected " + hex(kKvFrameMagic) + ", \"LWKV\"): not a KV frame");
  const uint16_t version = get<uint16_t>(p + 4);
  check(version == kKvFrameVersion, "kv transfer: frame version " + std::to_string(version) + "; expected " +
                                        std::to_string(kKvFrameVersion));
  const uint16_t type = get<uint16_t>(p + 6);
  check(type >= 1 && type <= 3, "kv transfer: frame type " + std::to_string(type) + "; expected 1 (Pull), 2 (Blocks) or 3 (Error)");
  KvFrameHeader h;
  h.type = KvFrameType(type);
  h.length = get<uint64_t>(p + 8);
  h.requestId = get<uint64_t>(p + 16);
  check(h.length <= kMaxKvFrameBody,
        "kv transfer: frame length " + std::to_string(h.length) + " exceeds the limit " + std::to_string(kMaxKvFrameBody));
  check(h.type != KvFrameType::Pull || h.length == 0,
        "kv transfer: a Pull frame of length " + std::to_string(h.length) + "; expected 0");
  return h;
}

KvFrame decodeKvFrameBody(const KvFrameHeader& h, std::string body) {
  check(body.size() == h.length, "kv transfer: a frame body of " + std::to_string(body.size()) +
                                     " bytes; its header says " + std::to_string(h.length));
  KvFrame f;
  f.type = h.type;
  f.requestId = h.requestId;
  if (h.type == KvFrameType::Error) f.data = std::move(body);
  if (h.type != KvFrameType::Blocks) return f;
  check(body.size() >= kBlocksFixedBytes,
        "kv transfer: a Blocks frame of " + std::to_string(body.size()) + " bytes; expected at least 16");
  const uint32_t numBlocks = get<uint32_t>(body.data());
  f.blockBytes = get<uint32_t>(body.data() + 4);
  f.blockSize = get<uint32_t>(body.data() + 8);
  const uint32_t reserved = get<uint32_t>(body.data() + 12);
  check(reserved == 0, "kv transfer: a Blocks frame's reserved field is " + std::to_string(reserved) + "; expected 0");
  const uint64_t expected = kBlocksFixedBytes + uint64_t(numBlocks) * (8 + uint64_t(f.blockBytes));
  check(body.size() == expected, "kv transfer: a Blocks frame of " + std::to_string(numBlocks) + " blocks of " +
                                     std::to_string(f.blockBytes) + " bytes has length " + std::to_string(body.size()) +
                                     "; expected " + std::to_string(expected));
  f.hashes.resize(numBlocks);
  for (uint32_t i = 0; i < numBlocks; ++i) f.hashes[i] = get<uint64_t>(body.data() + kBlocksFixedBytes + 8 * i);
  f.data = body.substr(kBlocksFixedBytes + 8 * size_t(numBlocks));
  return f;
}

int listenTcp(const std::string& host, int port, int* boundPort) {
  addrinfo* res = resolve(host, port, true);
  if (!res) return -1;
  int fd = -1;
  for (addrinfo* a = res; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(res);
  if (fd >= 0 && boundPort) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    *boundPort = addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                            : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  }
  return fd;
}

int connectTcp(const std::string& host, int port) {
  addrinfo* res = resolve(host, port, false);
  if (!res) return -1;
  int fd = -1;
  for (addrinfo* a = res; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(res);
  if (fd >= 0) {
    const int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  }
  return fd;
}

void setSocketTimeouts(int fd, double seconds) {
  timeval tv{};
  tv.tv_sec = time_t(seconds);
  tv.tv_usec = suseconds_t((seconds - double(tv.tv_sec)) * 1e6);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void sendKvFrame(int fd, const KvFrame& frame) {
  const std::string bytes = encodeKvFrame(frame);
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t r = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      throw Error("kv transfer: sending a frame failed after " + std::to_string(sent) + " of " +
                  std::to_string(bytes.size()) + " bytes: " + std::strerror(errno) + " (the peer is gone)");
    sent += size_t(r);
  }
}

KvFrame receiveKvFrame(int fd) {
  char head[kKvFrameHeaderBytes];
  if (!readExactly(fd, head, sizeof head, true, "header"))
    throw Error("kv transfer: the connection closed before a frame arrived");
  const KvFrameHeader h = decodeKvFrameHeader(head);
  // Grown as bytes arrive: a length that lies costs no more memory than was sent.
  constexpr size_t kChunk = size_t(1) << 20;
  std::string body;
  while (body.size() < h.length) {
    const size_t at = body.size();
    const size_t n = size_t(std::min<uint64_t>(kChunk, h.length - at));
    body.resize(at + n);
    try {
      readExactly(fd, body.data() + at, n, false, "body");
    } catch (const Error&) {
      throw Error("kv transfer: the connection closed or stalled within a frame body, " + std::to_string(at) +
                  "+ of its " + std::to_string(h.length) + " bytes read (truncated frame)");
    }
  }
  return decodeKvFrameBody(h, std::move(body));
}

void closeSocket(int fd) {
  if (fd >= 0) ::close(fd);
}

}  // namespace lwb::server
