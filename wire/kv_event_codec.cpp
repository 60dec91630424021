#include "wire/kv_event_codec.h"

#include <nlohmann/json.hpp>

#include "engine/common/error.h"

namespace lwb::remote {

using nlohmann::json;

namespace {

std::string where(size_t index) { return "KV event " + std::to_string(index); }

BlockHashText hashText(const json& j, const std::string& what) {
  if (j.is_number_unsigned()) return blockHashText(j.get<uint64_t>());
  if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
  if (j.is_binary()) {
    static const char* kHex = "0123456789abcdef";
    std::string out = "0x";
    for (uint8_t b : j.get_binary()) {
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
    return out;
  }
  throw Error(what + ": expected an integer or bytes hash, found " + std::string(j.type_name()));
}

std::vector<BlockHashText> hashList(const json& j, const std::string& what) {
  check(j.is_array(), what + ": expected an array of hashes, found " + std::string(j.type_name()));
  std::vector<BlockHashText> out;
  for (const json& h : j) out.push_back(hashText(h, what));
  return out;
}

std::string optionalString(const json& j, const std::string& what) {
  if (j.is_null()) return {};
  check(j.is_string(), what + ": expected a string or nil, found " + std::string(j.type_name()));
  return j.get<std::string>();
}

// The fields after the tag, in declaration order, from either form.
json fieldsOf(const json& e, const std::vector<const char*>& names, std::string* tag, const std::string& what) {
  json fields = json::array();
  if (e.is_array()) {
    check(!e.empty() && e[0].is_string(), what + ": expected [tag, fields...], the tag missing");
    *tag = e[0].get<std::string>();
    for (size_t i = 0; i < names.size(); ++i) fields.push_back(i + 1 < e.size() ? e[i + 1] : json());
    return fields;
  }
  check(e.is_object() && e.contains("type") && e["type"].is_string(),
        what + ": expected an array or a map with a \"type\" tag, found " + std::string(e.type_name()));
  *tag = e["type"].get<std::string>();
  for (const char* n : names) fields.push_back(e.value(n, json()));
  return fields;
}

RemoteKvEvent decodeEvent(const json& e, const std::string& what) {
  static const std::vector<const char*> kStored = {"block_hashes", "parent_block_hash", "token_ids",
                                                   "block_size", "lora_id", "medium"};
  std::string tag;
  json f = fieldsOf(e, kStored, &tag, what);
  RemoteKvEvent out;
  if (tag == "BlockStored") {
    out.kind = RemoteKvEvent::Kind::BlockStored;
    out.blockHashes = hashList(f[0], what + " block_hashes");
    if (!f[1].is_null()) out.parentBlockHash = hashText(f[1], what + " parent_block_hash");
    check(f[2].is_array(), what + " token_ids: expected an array, found " + std::string(f[2].type_name()));
    for (const json& t : f[2]) {
      check(t.is_number_integer(), what + " token_ids: expected integers, found " + std::string(t.type_name()));
      out.tokenIds.push_back(t.get<int>());
    }
    check(f[3].is_number_integer() && f[3].get<int64_t>() > 0,
          what + " block_size: expected a positive integer, found " + f[3].dump());
    out.blockSize = f[3].get<int>();
    check(out.tokenIds.size() == out.blockHashes.size() * size_t(out.blockSize),
          what + ": " + std::to_string(out.tokenIds.size()) + " token_ids for " +
              std::to_string(out.blockHashes.size()) + " blocks of " + std::to_string(out.blockSize));
    if (f[4].is_number_integer()) out.loraId = f[4].get<int64_t>();
    out.medium = optionalString(f[5], what + " medium");
  } else if (tag == "BlockRemoved") {
    static const std::vector<const char*> kRemoved = {"block_hashes", "medium"};
    f = fieldsOf(e, kRemoved, &tag, what);
    out.kind = RemoteKvEvent::Kind::BlockRemoved;
    out.blockHashes = hashList(f[0], what + " block_hashes");
    out.medium = optionalString(f[1], what + " medium");
  } else if (tag == "AllBlocksCleared") {
    out.kind = RemoteKvEvent::Kind::AllBlocksCleared;
  } else {
    throw Error(what + ": unknown tag '" + tag + "' (expected BlockStored, BlockRemoved or AllBlocksCleared)");
  }
  return out;
}

json encodeEvent(const KvCacheEvent& e, const std::string& medium) {
  if (const auto* s = std::get_if<KvBlockStored>(&e)) {
    json parent = s->parentBlockHash ? json(*s->parentBlockHash) : json();
    return json::array({"BlockStored", s->blockHashes, parent, s->tokenIds, s->blockSize, nullptr, medium});
  }
  if (const auto* r = std::get_if<KvBlockRemoved>(&e)) return json::array({"BlockRemoved", r->blockHashes, medium});
  return json::array({"AllBlocksCleared"});
}

}  // namespace

BlockHashText blockHashText(uint64_t hash) { return std::to_string(hash); }

RemoteKvBatch decodeKvEventBatch(const std::vector<uint8_t>& payload) {
  json j;
  try {
    j = json::from_msgpack(payload);
  } catch (const json::exception& e) {
    throw Error("KV event batch: not msgpack (" + std::to_string(payload.size()) + " bytes): " + e.what());
  }
  json ts, events, rank;
  if (j.is_array() && j.size() >= 2) {
    ts = j[0];
    events = j[1];
    if (j.size() > 2) rank = j[2];
  } else if (j.is_object()) {
    ts = j.value("ts", json());
    events = j.value("events", json());
    rank = j.value("data_parallel_rank", json());
  } else {
    throw Error("KV event batch: expected [ts, events, data_parallel_rank] or a map, found " + j.dump().substr(0, 80));
  }
  check(ts.is_number(), "KV event batch ts: expected a number, found " + std::string(ts.type_name()));
  check(events.is_array(), "KV event batch events: expected an array, found " + std::string(events.type_name()));
  RemoteKvBatch out;
  out.ts = ts.get<double>();
  if (rank.is_number_integer()) out.dataParallelRank = rank.get<int>();
  for (size_t i = 0; i < events.size(); ++i) out.events.push_back(decodeEvent(events[i], where(i)));
  return out;
}

std::vector<uint8_t> encodeKvEventBatch(const KvEventBatch& batch, const std::string& medium, int dataParallelRank) {
  json events = json::array();
  for (const KvCacheEvent& e : batch.events) events.push_back(encodeEvent(e, medium));
  return json::to_msgpack(json::array({batch.time, std::move(events), dataParallelRank}));
}

std::vector<uint8_t> encodeSeq(int64_t seq) {
  std::vector<uint8_t> out(8);
  const auto u = uint64_t(seq);
  for (int i = 0; i < 8; ++i) out[size_t(i)] = uint8_t(u >> (56 - 8 * i));
  return out;
}

int64_t decodeSeq(const std::vector<uint8_t>& frame) {
  check(frame.size() == 8, "KV event sequence frame: expected 8 bytes, found " + std::to_string(frame.size()));
  uint64_t u = 0;
  for (uint8_t b : frame) u = (u << 8) | b;
  return int64_t(u);
}

}  // namespace lwb::remote
