#include "engine/model/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json.h"

namespace lwb {

namespace {

using json = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100ull * 1000 * 1000;  // as the reference implementation

// Known safetensors dtypes we do not compute with: named "unsupported", not "invalid".
bool isKnownDType(const std::string& name) {
  static const char* const known[] = {"BOOL", "U8",  "I8",  "I16", "U16", "I32",    "U32",
                                      "I64",  "U64", "F64", "F8_E4M3", "F8_E5M2", "F8_E8M0",
                                      "F4",   "F6_E2M3", "F6_E3M2", "C64"};
  return std::any_of(std::begin(known), std::end(known), [&](const char* k) { return name == k; });
}

uint64_t readLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string errnoText() { return std::strerror(errno); }

DType parseEntryDType(const json& entry, const std::string& where) {
  check(entry.contains("dtype") && entry["dtype"].is_string(), where + ": missing string field 'dtype'");
  const std::string name = entry["dtype"].get<std::string>();
  DType dtype;
  if (parseDType(name, &dtype)) return dtype;
  if (isKnownDType(name))
    throw Error(where + ": unsupported dtype " + name + " (supported: F32, F16, BF16)");
  throw Error(where + ": invalid dtype '" + name + "'");
}

std::vector<int64_t> parseEntryShape(const json& entry, const std::string& where) {
  check(entry.contains("shape") && entry["shape"].is_array(), where + ": missing array field 'shape'");
  std::vector<int64_t> shape;
  for (const json& d : entry["shape"]) {
    check(d.is_number_integer() && d.get<int64_t>() >= 0 && d.get<int64_t>() < (int64_t(1) << 40),
          where + ": shape " + entry["shape"].dump() + " must hold non-negative integers");
    shape.push_back(d.get<int64_t>());
  }
  return shape;
}

// [begin, end) relative to the start of the data section.
std::pair<uint64_t, uint64_t> parseEntryOffsets(const json& entry, const std::string& where) {
  const char* field = "data_offsets";
  check(entry.contains(field) && entry[field].is_array() && entry[field].size() == 2 &&
            entry[field][0].is_number_unsigned() && entry[field][1].is_number_unsigned(),
        where + ": 'data_offsets' must be [begin, end] with non-negative integers");
  return {entry[field][0].get<uint64_t>(), entry[field][1].get<uint64_t>()};
}

// Whether numel(shape) * elementSize <= limit, without overflowing on absurd shapes.
bool fitsIn(const std::vector<int64_t>& shape, size_t elementSize, uint64_t limit) {
  uint64_t bytes = elementSize;
  for (int64_t d : shape) {
    if (d == 0) return true;
    if (bytes > limit / uint64_t(d)) return false;
    bytes *= uint64_t(d);
  }
  return bytes <= limit;
}

struct Span {
  uint64_t begin, end;
  std::string name;
};

void checkNoOverlap(std::vector<Span> spans, const std::string& fileName) {
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  for (size_t i = 1; i < spans.size(); ++i) {
    const Span& prev = spans[i - 1];
    const Span& cur = spans[i];
    // Empty tensors occupy no bytes and cannot overlap anything.
    if (cur.begin == cur.end || prev.begin == prev.end) continue;
    check(cur.begin >= prev.end, fileName + ": tensors " + prev.name + " [" + std::to_string(prev.begin) +
                                     ", " + std::to_string(prev.end) + ") and " + cur.name + " [" +
                                     std::to_string(cur.begin) + ", " + std::to_string(cur.end) +
                                     ") overlap");
  }
}

}  // namespace

std::string shapeToString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::map<std::string, TensorView> parseSafetensorsHeader(const uint8_t* bytes, size_t fileSize,
                                                         const std::string& fileName) {
  check(fileSize >= 8, fileName + ": file is " + std::to_string(fileSize) +
                           " bytes, too short for a safetensors header (needs at least 8)");
  const uint64_t headerLen = readLe64(bytes);
  check(headerLen <= fileSize - 8, fileName + ": header length " + std::to_string(headerLen) +
                                       " exceeds the file size " + std::to_string(fileSize) + " - 8");
  check(headerLen <= kMaxHeaderBytes, fileName + ": header length " + std::to_string(headerLen) +
                                          " exceeds the 100 MB limit");
  json header;
  try {
    header = parseJson(std::string_view(reinterpret_cast<const char*>(bytes) + 8, headerLen));
  } catch (const json::exception& e) {
    throw Error(fileName + ": header is not valid JSON: " + e.what());
  }
  check(header.is_object(), fileName + ": header must be a JSON object, found " + header.type_name());

  const uint64_t dataSize = fileSize - 8 - headerLen;
  const uint8_t* data = bytes + 8 + headerLen;
  std::map<std::string, TensorView> tensors;
  std::vector<Span> spans;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string where = fileName + ": tensor " + name;
    check(entry.is_object(), where + ": entry must be a JSON object");
    TensorView view;
    view.name = name;
    view.file = fileName;
    view.dtype = parseEntryDType(entry, where);
    view.shape = parseEntryShape(entry, where);
    const auto [begin, end] = parseEntryOffsets(entry, where);
    check(begin <= end, where + ": data_offsets begin " + std::to_string(begin) + " > end " + std::to_string(end));
    check(end <= dataSize, where + ": data_offsets end " + std::to_string(end) +
                               " is beyond the data section (" + std::to_string(dataSize) + " bytes)");
    check(fitsIn(view.shape, dtypeSize(view.dtype), dataSize),
          where + ": shape " + shapeToString(view.shape) + " is larger than the data section (" +
              std::to_string(dataSize) + " bytes)");
    check(end - begin == view.numBytes(),
          where + ": shape " + shapeToString(view.shape) + " of " + std::string(dtypeName(view.dtype)) + " needs " +
              std::to_string(view.numBytes()) + " bytes, data_offsets span " + std::to_string(end - begin));
    view.data = data + begin;
    spans.push_back({begin, end, name});
    tensors.emplace(name, std::move(view));
  }
  checkNoOverlap(std::move(spans), fileName);
  return tensors;
}

// ---- SafetensorsFile ---------------------------------------------------------------

std::unique_ptr<SafetensorsFile> SafetensorsFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  check(fd >= 0, path + ": cannot open: " + errnoText());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string why = errnoText();
    ::close(fd);
    throw Error(path + ": cannot stat: " + why);
  }
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path_ = path;
  file->size_ = size_t(st.st_size);
  if (file->size_ > 0) {
    void* map = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      const std::string why = errnoText();
      ::close(fd);
      throw Error(path + ": cannot mmap " + std::to_string(file->size_) + " bytes: " + why);
    }
    file->map_ = map;
  }
  ::close(fd);  // the mapping keeps the file alive
  static const uint8_t empty[1] = {0};
  const uint8_t* bytes = file->map_ ? static_cast<const uint8_t*>(file->map_) : empty;
  file->tensors_ = parseSafetensorsHeader(bytes, file->size_, path);
  return file;
}

SafetensorsFile::~SafetensorsFile() {
  if (map_) ::munmap(map_, size_);
}

// ---- writer ------------------------------------------------------------------------

void writeSafetensors(const std::string& path, const std::vector<TensorData>& tensors) {
  json header = json::object();
  uint64_t offset = 0;
  for (const TensorData& t : tensors) {
    check(!header.contains(t.name), path + ": tensor " + t.name + " given twice");
    int64_t numel = 1;
    for (int64_t d : t.shape) numel *= d;
    check(t.bytes.size() == size_t(numel) * dtypeSize(t.dtype),
          path + ": tensor " + t.name + ": " + std::to_string(t.bytes.size()) + " bytes given, shape " +
              shapeToString(t.shape) + " needs " + std::to_string(size_t(numel) * dtypeSize(t.dtype)));
    header[t.name] = {{"dtype", std::string(dtypeName(t.dtype))},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data section 8-byte aligned
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  check(bool(out), path + ": cannot open for writing");
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = uint8_t(uint64_t(text.size()) >> (8 * i));
  out.write(reinterpret_cast<const char*>(len), 8);
  out.write(text.data(), std::streamsize(text.size()));
  for (const TensorData& t : tensors) out.write(reinterpret_cast<const char*>(t.bytes.data()), std::streamsize(t.bytes.size()));
  check(bool(out), path + ": write failed");
}

}  // namespace lwb
