#pragma once
// The TcpConnector's wire format (P/D across processes, kv_connector_tcp.h) and the
// plain POSIX sockets it travels over. One request per connection: the consumer sends
// a Pull frame, the producer answers with one Blocks or Error frame and closes.
// Length-prefixed frames, every integer little-endian:
//
//   header, 24 bytes
//     magic      u32  0x564B574C (the bytes "LWKV")
//     version    u16  1
//     type       u16  1 = Pull, 2 = Blocks, 3 = Error
//     length     u64  bytes of the body that follows, at most kMaxKvFrameBody
//     request    u64  the transfer's id (kv_transfer_params.remote_request_id)
//   body
//     Pull       empty
//     Blocks     num_blocks u32, block_bytes u32, block_size u32, reserved u32 (0),
//                hashes u64[num_blocks]: the prefix cache's chain hashes of the prompt's
//                  full blocks (hash(parent, block's token ids), the first parent 0),
//                data u8[num_blocks × block_bytes]: each block's K and V in the
//                  executor's layout (Executor::readKvBlock)
//     Error      a UTF-8 message
//
// A frame that breaks these rules (magic, version, type, a length over the limit or not
// matching its block counts, a connection closed early) is an lwb::Error naming what was
// wrong; the side that reads it drops the connection.
#include <cstdint>
#include <string>
#include <vector>

namespace lwb::server {

inline constexpr uint32_t kKvFrameMagic = 0x564B574Cu;
inline constexpr uint16_t kKvFrameVersion = 1;
inline constexpr size_t kKvFrameHeaderBytes = 24;
inline constexpr uint64_t kMaxKvFrameBody = uint64_t(1) << 32;  // 4 GiB: a bound, not a plan

enum class KvFrameType : uint16_t { Pull = 1, Blocks = 2, Error = 3 };

struct KvFrame {
  KvFrameType type = KvFrameType::Pull;
  uint64_t requestId = 0;
  uint32_t blockBytes = 0;      // Blocks: bytes per block
  uint32_t blockSize = 0;       // Blocks: tokens per block
  std::vector<uint64_t> hashes; // Blocks: [num_blocks]
  std::string data;             // Blocks: [num_blocks × block_bytes]; Error: the message

  size_t numBlocks() const { return hashes.size(); }
};

std::string encodeKvFrame(const KvFrame& frame);
struct KvFrameHeader {
  KvFrameType type = KvFrameType::Pull;
  uint64_t length = 0;
  uint64_t requestId = 0;
};
// Throws lwb::Error naming the bad magic, version, type or length.
KvFrameHeader decodeKvFrameHeader(const char* bytes);  // kKvFrameHeaderBytes of them
KvFrame decodeKvFrameBody(const KvFrameHeader& header, std::string body);

// Sockets. Every call is bounded by the socket's timeouts (setSocketTimeouts).
int listenTcp(const std::string& host, int port, int* boundPort);  // -1 on failure
int connectTcp(const std::string& host, int port);                 // -1 on failure
void setSocketTimeouts(int fd, double seconds);
void sendKvFrame(int fd, const KvFrame& frame);  // throws lwb::Error when the peer is gone
KvFrame receiveKvFrame(int fd);                   // throws lwb::Error (see above)
void closeSocket(int fd);

}  // namespace lwb::server
