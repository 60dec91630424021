// The GGUF parser: a bounds-checked cursor over the file's bytes. Every count read from
// the file is checked against the bytes left before anything is allocated for it, so a
// hostile header cannot make us allocate or loop more than the file's size allows.
#include "engine/model/gguf.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "engine/common/error.h"

namespace lwb {

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian uint32
constexpr int kMaxDims = 4;              // GGML_MAX_DIMS
constexpr int kMaxArrayDepth = 4;        // nested arrays: deeper is certainly garbage
constexpr int64_t kMaxElements = int64_t(1) << 50;

class Cursor {
 public:
  Cursor(const uint8_t* bytes, size_t size, const std::string& file) : p_(bytes), size_(size), file_(file) {}

  size_t pos() const { return pos_; }
  size_t left() const { return size_ - pos_; }
  const std::string& file() const { return file_; }

  void need(uint64_t n, const std::string& what) const {
    if (n > left())
      throw Error(file_ + ": truncated while reading " + what + " (needs " + std::to_string(n) + " bytes at offset " +
                  std::to_string(pos_) + ", " + std::to_string(left()) + " left)");
  }
  template <typename T>
  T read(const std::string& what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, p_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string readString(const std::string& what) {
    const uint64_t len = read<uint64_t>(what + " (string length)");
    need(len, what);
    std::string s(reinterpret_cast<const char*>(p_ + pos_), size_t(len));
    pos_ += size_t(len);
    return s;
  }

 private:
  const uint8_t* p_;
  size_t size_;
  size_t pos_ = 0;
  std::string file_;
};

// Smallest encoding of one value of type t: bounds array counts before allocating.
size_t minValueBytes(GgufValueType t) {
  switch (t) {
    case GgufValueType::Uint8: case GgufValueType::Int8: case GgufValueType::Bool: return 1;
    case GgufValueType::Uint16: case GgufValueType::Int16: return 2;
    case GgufValueType::Uint32: case GgufValueType::Int32: case GgufValueType::Float32: return 4;
    case GgufValueType::Uint64: case GgufValueType::Int64: case GgufValueType::Float64: return 8;
    case GgufValueType::String: return 8;
    case GgufValueType::Array: return 12;
  }
  return 1;
}

bool isValueType(uint32_t raw) { return raw <= uint32_t(GgufValueType::Float64); }

GgufValue readValue(Cursor& c, GgufValueType type, const std::string& where, int depth);

GgufValue readArray(Cursor& c, const std::string& where, int depth) {
  check(depth < kMaxArrayDepth, c.file() + ": " + where + ": arrays nested deeper than " + std::to_string(kMaxArrayDepth));
  const uint32_t rawType = c.read<uint32_t>(where + " (array element type)");
  check(isValueType(rawType), c.file() + ": " + where + ": unknown array element type " + std::to_string(rawType));
  const uint64_t count = c.read<uint64_t>(where + " (array length)");
  GgufValue v;
  v.type = GgufValueType::Array;
  v.elementType = GgufValueType(rawType);
  check(count <= c.left() / minValueBytes(v.elementType),
        c.file() + ": " + where + ": array of " + std::to_string(count) + " " + ggufValueTypeName(v.elementType) +
            " values does not fit in the " + std::to_string(c.left()) + " bytes left");
  v.array.reserve(size_t(count));
  for (uint64_t k = 0; k < count; ++k) v.array.push_back(readValue(c, v.elementType, where, depth + 1));
  return v;
}

GgufValue readValue(Cursor& c, GgufValueType type, const std::string& where, int depth) {
  GgufValue v;
  v.type = type;
  switch (type) {
    case GgufValueType::Uint8: v.u = c.read<uint8_t>(where); break;
    case GgufValueType::Int8: v.i = c.read<int8_t>(where); break;
    case GgufValueType::Uint16: v.u = c.read<uint16_t>(where); break;
    case GgufValueType::Int16: v.i = c.read<int16_t>(where); break;
    case GgufValueType::Uint32: v.u = c.read<uint32_t>(where); break;
    case GgufValueType::Int32: v.i = c.read<int32_t>(where); break;
    case GgufValueType::Uint64: v.u = c.read<uint64_t>(where); break;
    case GgufValueType::Int64: v.i = c.read<int64_t>(where); break;
    case GgufValueType::Float32: v.f = c.read<float>(where); break;
    case GgufValueType::Float64: v.f = c.read<double>(where); break;
    case GgufValueType::Bool: {
      const uint8_t b = c.read<uint8_t>(where);
      check(b <= 1, c.file() + ": " + where + ": bool value " + std::to_string(b) + " (expected 0 or 1)");
      v.u = b;
      break;
    }
    case GgufValueType::String: v.s = c.readString(where); break;
    case GgufValueType::Array: return readArray(c, where, depth);
  }
  return v;
}

void readMetadata(Cursor& c, uint64_t count, GgufContents& out) {
  for (uint64_t k = 0; k < count; ++k) {
    const std::string key = c.readString("metadata key #" + std::to_string(k));
    const std::string where = "metadata key " + key;
    check(!out.metadata.count(key), c.file() + ": " + where + " appears twice");
    const uint32_t rawType = c.read<uint32_t>(where + " (value type)");
    check(isValueType(rawType), c.file() + ": " + where + ": unknown value type " + std::to_string(rawType));
    out.metadata.emplace(key, readValue(c, GgufValueType(rawType), where, 0));
  }
}

uint64_t alignmentOf(const GgufContents& g, const std::string& file) {
  auto it = g.metadata.find("general.alignment");
  if (it == g.metadata.end()) return 32;
  const GgufValue& v = it->second;
  check(v.type == GgufValueType::Uint32, file + ": metadata key general.alignment: expected a uint32, found " +
                                             ggufValueTypeName(v.type));
  // At least 8 (the format says a multiple of 8): tensor data are read in place, as
  // floats and as blocks with 16-bit scales, which need their natural alignment.
  check(v.u >= 8 && (v.u & (v.u - 1)) == 0,
        file + ": metadata key general.alignment = " + std::to_string(v.u) + ": expected a power of two, at least 8");
  return v.u;
}

GgufTensor readTensorInfo(Cursor& c, uint64_t index) {
  GgufTensor t;
  t.name = c.readString("name of tensor #" + std::to_string(index));
  const std::string where = c.file() + ": tensor " + t.name;
  const uint32_t numDims = c.read<uint32_t>("tensor " + t.name + " (number of dimensions)");
  check(numDims >= 1 && numDims <= kMaxDims,
        where + ": " + std::to_string(numDims) + " dimensions (expected 1 to " + std::to_string(kMaxDims) + ")");
  int64_t numel = 1;
  for (uint32_t d = 0; d < numDims; ++d) {
    const uint64_t dim = c.read<uint64_t>("tensor " + t.name + " (dimensions)");
    check(dim >= 1 && dim <= uint64_t(kMaxElements) && uint64_t(numel) <= uint64_t(kMaxElements) / dim,
          where + ": dimension " + std::to_string(d) + " = " + std::to_string(dim) +
              " is zero or makes the element count overflow");
    numel *= int64_t(dim);
    t.dims.push_back(int64_t(dim));
  }
  t.shape.assign(t.dims.rbegin(), t.dims.rend());
  const uint32_t rawType = c.read<uint32_t>("tensor " + t.name + " (type)");
  check(isSupportedGgmlType(rawType) && rawType != uint32_t(GgmlType::Q8_K),
        where + ": unsupported tensor type " + ggmlTypeName(rawType) +
            " (supported: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K)");
  t.type = GgmlType(rawType);
  const int bs = ggmlBlockSize(t.type);
  check(t.dims[0] % bs == 0, where + ": row length " + std::to_string(t.dims[0]) + " is not a multiple of " +
                                 ggmlTypeName(t.type) + "'s block size " + std::to_string(bs));
  t.numBytes = size_t(numel / bs) * ggmlBlockBytes(t.type);  // numel < 2^50, blocks >= 1 element: no overflow
  t.offset = c.read<uint64_t>("tensor " + t.name + " (offset)");
  return t;
}

// Offsets: aligned, inside the data section, and no two tensors sharing bytes.
void placeTensors(GgufContents& g, const uint8_t* bytes, size_t size, const std::string& file) {
  const uint64_t dataBytes = size - g.dataOffset;
  for (GgufTensor& t : g.tensors) {
    const std::string where = file + ": tensor " + t.name;
    check(t.offset % g.alignment == 0, where + ": offset " + std::to_string(t.offset) +
                                           " is not a multiple of the alignment " + std::to_string(g.alignment));
    check(t.offset <= dataBytes && t.numBytes <= dataBytes - t.offset,
          where + ": data [" + std::to_string(t.offset) + ", +" + std::to_string(t.numBytes) +
              ") lies outside the file's data section of " + std::to_string(dataBytes) + " bytes");
    t.data = bytes + g.dataOffset + t.offset;
  }
  std::vector<const GgufTensor*> byOffset;
  for (const GgufTensor& t : g.tensors) byOffset.push_back(&t);
  std::sort(byOffset.begin(), byOffset.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  for (size_t k = 1; k < byOffset.size(); ++k)
    check(byOffset[k - 1]->offset + byOffset[k - 1]->numBytes <= byOffset[k]->offset,
          file + ": tensors " + byOffset[k - 1]->name + " and " + byOffset[k]->name + " overlap");
}

}  // namespace

const char* ggufValueTypeName(GgufValueType t) {
  static const char* const names[] = {"uint8", "int8",   "uint16", "int16",  "uint32", "int32", "float32",
                                      "bool",  "string", "array",  "uint64", "int64",  "float64"};
  return uint32_t(t) < std::size(names) ? names[uint32_t(t)] : "unknown";
}

bool GgufValue::isInteger() const {
  switch (type) {
    case GgufValueType::Float32: case GgufValueType::Float64: case GgufValueType::Bool:
    case GgufValueType::String: case GgufValueType::Array:
      return false;
    default: return true;
  }
}

int64_t GgufTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

GgufContents parseGguf(const uint8_t* bytes, size_t size, const std::string& fileName) {
  Cursor c(bytes, size, fileName);
  const uint32_t magic = c.read<uint32_t>("the header (magic)");
  check(magic == kMagic, fileName + ": not a GGUF file (bad magic; expected the bytes \"GGUF\")");
  GgufContents g;
  g.version = c.read<uint32_t>("the header (version)");
  check(g.version != 0x03000000 && g.version != 0x02000000, fileName + ": big-endian GGUF files are not supported");
  check(g.version == 2 || g.version == 3,
        fileName + ": GGUF version " + std::to_string(g.version) + " is not supported (expected 2 or 3)");
  const uint64_t numTensors = c.read<uint64_t>("the header (tensor count)");
  const uint64_t numKv = c.read<uint64_t>("the header (metadata count)");
  // A key/value takes at least 8 + 4 + 1 bytes, a tensor info 8 + 4 + 8 + 4 + 8.
  check(numKv <= c.left() / 13, fileName + ": metadata count " + std::to_string(numKv) + " exceeds what the file holds");
  readMetadata(c, numKv, g);
  check(numTensors <= c.left() / 32,
        fileName + ": tensor count " + std::to_string(numTensors) + " exceeds what the file holds");
  g.tensors.reserve(size_t(numTensors));
  std::set<std::string> names;
  for (uint64_t k = 0; k < numTensors; ++k) {
    g.tensors.push_back(readTensorInfo(c, k));
    check(names.insert(g.tensors.back().name).second, fileName + ": tensor " + g.tensors.back().name + " appears twice");
  }
  g.alignment = alignmentOf(g, fileName);
  const uint64_t aligned = (uint64_t(c.pos()) + g.alignment - 1) / g.alignment * g.alignment;
  check(g.tensors.empty() || aligned <= size,
        fileName + ": truncated: the data section would start at byte " + std::to_string(aligned) + " of " +
            std::to_string(size));
  g.dataOffset = std::min<uint64_t>(aligned, size);
  placeTensors(g, bytes, size, fileName);
  return g;
}

}  // namespace lwb
