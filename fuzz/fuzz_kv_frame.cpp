// Any bytes as a TcpConnector frame (server/kv_transfer_frame.h): decoding either accepts
// them or throws lwb::Error naming what was wrong; nothing else may escape, and an
// accepted frame encodes back to the same bytes.
#include <cstdint>
#include <string>

#include "engine/common/error.h"
#include "server/kv_transfer_frame.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace s = lwb::server;
  if (size < s::kKvFrameHeaderBytes) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const s::KvFrameHeader head = s::decodeKvFrameHeader(bytes.data());
    const s::KvFrame frame = s::decodeKvFrameBody(head, bytes.substr(s::kKvFrameHeaderBytes));
    if (s::encodeKvFrame(frame) != bytes) __builtin_trap();
  } catch (const lwb::Error&) {
  }
  return 0;
}
