#pragma once
// Read-only, memory-mapped GGUF files (versions 2 and 3): header, metadata key/values of
// every type (arrays included, nested too), tensor infos and the aligned data section.
// Everything is validated before use: truncation, magic, version, counts against the
// bytes left, string and array lengths, dimensions and their product, tensor types,
// row lengths against block sizes, offsets against alignment and the file size, and
// overlapping tensors. Errors name the file and the key or tensor.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/model/quant_types.h"

namespace lwb {

enum class GgufValueType : uint32_t {
  Uint8 = 0, Int8 = 1, Uint16 = 2, Int16 = 3, Uint32 = 4, Int32 = 5, Float32 = 6, Bool = 7,
  String = 8, Array = 9, Uint64 = 10, Int64 = 11, Float64 = 12,
};
const char* ggufValueTypeName(GgufValueType t);

// One metadata value. Integers are kept in `i` (signed types) or `u` (unsigned and
// bool); floats in `f`; arrays hold their elements, all of `elementType`.
struct GgufValue {
  GgufValueType type = GgufValueType::Uint8;
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  GgufValueType elementType = GgufValueType::Uint8;  // arrays only
  std::vector<GgufValue> array;

  bool isInteger() const;
  bool isFloat() const { return type == GgufValueType::Float32 || type == GgufValueType::Float64; }
};

struct GgufTensor {
  std::string name;
  GgmlType type = GgmlType::F32;
  std::vector<int64_t> dims;   // ggml order: dims[0] is the row length (innermost)
  std::vector<int64_t> shape;  // row-major order as safetensors and PyTorch spell it: reversed dims
  uint64_t offset = 0;         // from the start of the data section
  size_t numBytes = 0;
  const uint8_t* data = nullptr;

  int64_t numel() const;
  int64_t rowLength() const { return dims[0]; }
  int64_t numRows() const { return numel() / dims[0]; }
};

// What the header says, with tensor data pointers into the parsed bytes.
struct GgufContents {
  uint32_t version = 0;
  uint64_t alignment = 32;
  uint64_t dataOffset = 0;  // where the data section starts in the file
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensor> tensors;  // in file order
};

// Parses a whole GGUF file of `size` bytes at `bytes`. Throws lwb::Error naming
// `fileName` and the key or tensor at fault. Exposed separately for the fuzzer.
GgufContents parseGguf(const uint8_t* bytes, size_t size, const std::string& fileName);

// Whether `path` names a GGUF file (a regular file starting with the GGUF magic).
bool isGgufFile(const std::string& path);

class GgufFile {
 public:
  // mmaps and parses; throws lwb::Error.
  static std::unique_ptr<GgufFile> open(const std::string& path);
  // Parses `size` bytes the caller keeps alive for the object's lifetime, named `name`
  // in errors (the fuzzer's way in, without a file).
  static std::unique_ptr<GgufFile> fromMemory(const uint8_t* bytes, size_t size, const std::string& name);
  ~GgufFile();
  GgufFile(const GgufFile&) = delete;
  GgufFile& operator=(const GgufFile&) = delete;

  const std::string& path() const { return path_; }
  uint32_t version() const { return contents_.version; }
  size_t fileSize() const { return size_; }
  const std::map<std::string, GgufValue>& metadata() const { return contents_.metadata; }
  const std::vector<GgufTensor>& tensors() const { return contents_.tensors; }
  const GgufTensor* findTensor(const std::string& name) const;

  // Typed metadata access; each throws "<file>: metadata key <key>: ..." when the key is
  // missing or holds another type. The *Or forms return `fallback` when it is missing.
  const GgufValue* find(const std::string& key) const;
  std::string getString(const std::string& key) const;
  uint64_t getUint(const std::string& key) const;  // any non-negative integer type
  uint64_t getUintOr(const std::string& key, uint64_t fallback) const;
  double getFloat(const std::string& key) const;   // Float32/Float64
  double getFloatOr(const std::string& key, double fallback) const;
  std::vector<std::string> getStringArray(const std::string& key) const;
  std::vector<double> getFloatArray(const std::string& key) const;  // numeric arrays
  std::vector<int64_t> getIntArray(const std::string& key) const;   // integer arrays

 private:
  GgufFile() = default;
  std::string path_;
  void* map_ = nullptr;  // null for fromMemory (not ours to unmap)
  size_t size_ = 0;
  GgufContents contents_;
};

// Writes a GGUF v3 file (used by tests, the fuzz seed and benchmarks to make models).
// Tensor data are given in their final bytes; offsets and padding are computed here.
struct GgufTensorData {
  std::string name;
  GgmlType type = GgmlType::F32;
  std::vector<int64_t> dims;  // ggml order
  std::vector<uint8_t> bytes;
};
std::vector<uint8_t> serializeGguf(const std::vector<std::pair<std::string, GgufValue>>& metadata,
                                   const std::vector<GgufTensorData>& tensors, uint64_t alignment = 32);
void writeGguf(const std::string& path, const std::vector<std::pair<std::string, GgufValue>>& metadata,
               const std::vector<GgufTensorData>& tensors, uint64_t alignment = 32);

// Convenience constructors for metadata values.
GgufValue ggufString(const std::string& s);
GgufValue ggufUint32(uint32_t v);
GgufValue ggufInt32(int32_t v);
GgufValue ggufFloat32(float v);
GgufValue ggufBool(bool v);
GgufValue ggufArray(GgufValueType elementType, std::vector<GgufValue> elements);

}  // namespace lwb
