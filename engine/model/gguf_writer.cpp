// GGUF v3 writer: the inverse of parseGguf, for tests, fuzz seeds and benchmark models.
#include <cstring>
#include <fstream>

#include "engine/common/error.h"
#include "engine/model/gguf.h"

namespace lwb {

namespace {

template <typename T>
void put(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

void putString(std::vector<uint8_t>& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

void putValue(std::vector<uint8_t>& out, const GgufValue& v) {
  switch (v.type) {
    case GgufValueType::Uint8: put<uint8_t>(out, uint8_t(v.u)); break;
    case GgufValueType::Int8: put<int8_t>(out, int8_t(v.i)); break;
    case GgufValueType::Uint16: put<uint16_t>(out, uint16_t(v.u)); break;
    case GgufValueType::Int16: put<int16_t>(out, int16_t(v.i)); break;
    case GgufValueType::Uint32: put<uint32_t>(out, uint32_t(v.u)); break;
    case GgufValueType::Int32: put<int32_t>(out, int32_t(v.i)); break;
    case GgufValueType::Uint64: put<uint64_t>(out, v.u); break;
    case GgufValueType::Int64: put<int64_t>(out, v.i); break;
    case GgufValueType::Float32: put<float>(out, float(v.f)); break;
    case GgufValueType::Float64: put<double>(out, v.f); break;
    case GgufValueType::Bool: put<uint8_t>(out, v.u ? 1 : 0); break;
    case GgufValueType::String: putString(out, v.s); break;
    case GgufValueType::Array:
      put<uint32_t>(out, uint32_t(v.elementType));
      put<uint64_t>(out, v.array.size());
      for (const GgufValue& e : v.array) putValue(out, e);
      break;
  }
}

void padTo(std::vector<uint8_t>& out, uint64_t alignment) {
  while (out.size() % alignment) out.push_back(0);
}

}  // namespace

std::vector<uint8_t> serializeGguf(const std::vector<std::pair<std::string, GgufValue>>& metadata,
                                   const std::vector<GgufTensorData>& tensors, uint64_t alignment) {
  std::vector<uint8_t> out;
  put<uint32_t>(out, 0x46554747);
  put<uint32_t>(out, 3);
  put<uint64_t>(out, tensors.size());
  put<uint64_t>(out, metadata.size());
  for (const auto& [key, value] : metadata) {
    putString(out, key);
    put<uint32_t>(out, uint32_t(value.type));
    putValue(out, value);
  }
  uint64_t offset = 0;
  for (const GgufTensorData& t : tensors) {
    putString(out, t.name);
    put<uint32_t>(out, uint32_t(t.dims.size()));
    for (int64_t d : t.dims) put<uint64_t>(out, uint64_t(d));
    put<uint32_t>(out, uint32_t(t.type));
    put<uint64_t>(out, offset);
    offset += (t.bytes.size() + alignment - 1) / alignment * alignment;
  }
  padTo(out, alignment);
  for (const GgufTensorData& t : tensors) {
    out.insert(out.end(), t.bytes.begin(), t.bytes.end());
    padTo(out, alignment);
  }
  return out;
}

void writeGguf(const std::string& path, const std::vector<std::pair<std::string, GgufValue>>& metadata,
               const std::vector<GgufTensorData>& tensors, uint64_t alignment) {
  const std::vector<uint8_t> bytes = serializeGguf(metadata, tensors, alignment);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  check(bool(out), path + ": cannot create");
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  check(bool(out), path + ": write failed");
}

GgufValue ggufString(const std::string& s) {
  GgufValue v;
  v.type = GgufValueType::String;
  v.s = s;
  return v;
}
GgufValue ggufUint32(uint32_t x) {
  GgufValue v;
  v.type = GgufValueType::Uint32;
  v.u = x;
  return v;
}
GgufValue ggufInt32(int32_t x) {
  GgufValue v;
  v.type = GgufValueType::Int32;
  v.i = x;
  return v;
}
GgufValue ggufFloat32(float x) {
  GgufValue v;
  v.type = GgufValueType::Float32;
  v.f = x;
  return v;
}
GgufValue ggufBool(bool x) {
  GgufValue v;
  v.type = GgufValueType::Bool;
  v.u = x ? 1 : 0;
  return v;
}
GgufValue ggufArray(GgufValueType elementType, std::vector<GgufValue> elements) {
  GgufValue v;
  v.type = GgufValueType::Array;
  v.elementType = elementType;
  v.array = std::move(elements);
  return v;
}

}  // namespace lwb
