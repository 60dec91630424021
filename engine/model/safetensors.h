#pragma once
// Read-only, memory-mapped safetensors: a single file or a sharded set
// (model.safetensors.index.json). Everything in the header is validated: its length,
// JSON, dtypes, shapes against byte sizes, offsets within the file, no overlaps.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/common/dtype.h"
#include "engine/model/quant_types.h"

namespace lwb {

struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  const void* data = nullptr;  // points into a mapping owned by the WeightStore
  std::string file;            // file it came from (for error messages)
  // A GGUF tensor stored in ggml blocks (Q8_0, Q4_K, ...): rows of shape.back() elements
  // as ggml lays them out, and `dtype` is meaningless. F32 for every plain tensor.
  GgmlType blockType = GgmlType::F32;

  bool isQuantized() const { return blockType != GgmlType::F32; }
  int64_t numel() const;
  size_t numBytes() const {
    if (isQuantized()) return size_t(numel() / shape.back()) * ggmlRowBytes(blockType, shape.back());
    return size_t(numel()) * dtypeSize(dtype);
  }
};

// One mmapped .safetensors file.
class SafetensorsFile {
 public:
  // Throws lwb::Error naming the file and what is wrong.
  static std::unique_ptr<SafetensorsFile> open(const std::string& path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }
  size_t fileSize() const { return size_; }

 private:
  SafetensorsFile() = default;
  std::string path_;
  void* map_ = nullptr;
  size_t size_ = 0;
  std::map<std::string, TensorView> tensors_;
};

// Parses and validates a safetensors header against a file of `fileSize` bytes whose
// first bytes are `bytes` (at least 8 + header length). Tensor data pointers are set
// relative to `bytes`. Exposed separately for the fuzzer. Throws lwb::Error.
std::map<std::string, TensorView> parseSafetensorsHeader(const uint8_t* bytes, size_t fileSize,
                                                         const std::string& fileName);

class GgufFile;
struct ModelConfig;

// All tensors of a model folder: model.safetensors or the shards listed in
// model.safetensors.index.json. Or of a GGUF file, under their Hugging Face names.
class WeightStore {
 public:
  WeightStore();
  ~WeightStore();
  static std::unique_ptr<WeightStore> openFolder(const std::string& dir);
  // The tensors of a GGUF file (gguf_weights.cpp): renamed, shapes in row-major order,
  // q/k rows un-permuted when the converter permuted them (copies), the rest mmapped.
  static std::unique_ptr<WeightStore> fromGguf(std::unique_ptr<GgufFile> file, const ModelConfig& config,
                                               bool unpermuteQk);
  const TensorView* find(const std::string& name) const;
  // Throws lwb::Error "<file>: tensor <name>: expected shape [..], found [..]" or
  // "...: missing tensor <name>".
  const TensorView& require(const std::string& name, const std::vector<int64_t>& shape) const;
  const std::map<std::string, TensorView>& all() const { return tensors_; }
  size_t totalBytes() const;
  std::string describeLocation() const;  // "dir/model.safetensors" or "dir (3 shards)"

 private:
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::unique_ptr<GgufFile> gguf_;
  std::vector<std::vector<uint8_t>> owned_;  // un-permuted copies of GGUF q/k weights
  std::map<std::string, TensorView> tensors_;
  std::string dir_;
};

// "[2, 3]": shapes as error messages spell them.
std::string shapeToString(const std::vector<int64_t>& shape);

// Writes a safetensors file (used by tests, benchmarks and tools to make random models).
struct TensorData {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;  // little-endian elements
};
void writeSafetensors(const std::string& path, const std::vector<TensorData>& tensors);

}  // namespace lwb
