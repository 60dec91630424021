#pragma once
// vLLM's KV-cache event messages (vllm/distributed/kv_events.py) in msgpack, through
// nlohmann::json's msgpack reader and writer. The publisher writes the array-like form
// of vLLM's msgspec structs, which vLLM's own example subscriber decodes:
//   KVEventBatch     = [ts, [event, ...], data_parallel_rank]
//   BlockStored      = ["BlockStored", block_hashes, parent_block_hash, token_ids,
//                       block_size, lora_id, medium]
//   BlockRemoved     = ["BlockRemoved", block_hashes, medium]
//   AllBlocksCleared = ["AllBlocksCleared"]
// The reader also takes the map form ({"ts": ..., "events": [{"type": "BlockStored",
// ...}]}) and extra trailing fields, as msgspec does, and hashes sent as bytes
// (newer vLLM) as well as integers. On the wire a message is three ZeroMQ frames:
// topic, sequence number (8 bytes, big-endian), payload.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/kv/kv_events.h"

namespace lwb::remote {

// A block hash as text: an integer hash in decimal, a bytes hash in hex ("0x..."),
// so hashes of either kind compare and print the same way.
using BlockHashText = std::string;
BlockHashText blockHashText(uint64_t hash);

struct RemoteKvEvent {
  enum class Kind { BlockStored, BlockRemoved, AllBlocksCleared } kind = Kind::AllBlocksCleared;
  std::vector<BlockHashText> blockHashes;
  std::optional<BlockHashText> parentBlockHash;  // BlockStored
  std::vector<int> tokenIds;                     // BlockStored
  int blockSize = 0;                             // BlockStored
  std::optional<int64_t> loraId;
  std::string medium;                            // "GPU", "CPU", ... ("" = not given)
};

struct RemoteKvBatch {
  double ts = 0;
  std::vector<RemoteKvEvent> events;
  std::optional<int> dataParallelRank;
};

// Throws lwb::Error naming the element that does not fit the layout above.
RemoteKvBatch decodeKvEventBatch(const std::vector<uint8_t>& payload);
std::vector<uint8_t> encodeKvEventBatch(const KvEventBatch& batch, const std::string& medium, int dataParallelRank);

// The sequence-number frame: 8 bytes, big-endian, signed (-1 ends a replay).
std::vector<uint8_t> encodeSeq(int64_t seq);
// Throws lwb::Error unless `frame` has 8 bytes.
int64_t decodeSeq(const std::vector<uint8_t>& frame);

}  // namespace lwb::remote
