// GgufFile: the mmapped file and typed metadata access with readable errors.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/common/error.h"
#include "engine/model/gguf.h"

namespace lwb {

bool isGgufFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[4] = {};
  const bool ok = ::read(fd, magic, 4) == 4 && std::memcmp(magic, "GGUF", 4) == 0;
  ::close(fd);
  return ok;
}

std::unique_ptr<GgufFile> GgufFile::open(const std::string& path) {
  std::unique_ptr<GgufFile> f(new GgufFile);
  f->path_ = path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  check(fd >= 0, path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": not a regular file");
  }
  f->size_ = size_t(st.st_size);
  if (f->size_ > 0) {
    void* map = mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    check(map != MAP_FAILED, path + ": cannot map: " + std::strerror(err));
    f->map_ = map;
  } else {
    ::close(fd);
  }
  f->contents_ = parseGguf(static_cast<const uint8_t*>(f->map_), f->size_, path);
  return f;
}

std::unique_ptr<GgufFile> GgufFile::fromMemory(const uint8_t* bytes, size_t size, const std::string& name) {
  std::unique_ptr<GgufFile> f(new GgufFile);
  f->path_ = name;
  f->size_ = size;
  f->contents_ = parseGguf(bytes, size, name);
  return f;
}

GgufFile::~GgufFile() {
  if (map_) munmap(map_, size_);
}

const GgufTensor* GgufFile::findTensor(const std::string& name) const {
  for (const GgufTensor& t : contents_.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const GgufValue* GgufFile::find(const std::string& key) const {
  auto it = contents_.metadata.find(key);
  return it == contents_.metadata.end() ? nullptr : &it->second;
}

namespace {

const GgufValue& require(const GgufFile& f, const std::string& key) {
  const GgufValue* v = f.find(key);
  check(v != nullptr, f.path() + ": missing metadata key " + key);
  return *v;
}

[[noreturn]] void wrongType(const GgufFile& f, const std::string& key, const GgufValue& v, const char* expected) {
  std::string found = ggufValueTypeName(v.type);
  if (v.type == GgufValueType::Array) found += std::string(" of ") + ggufValueTypeName(v.elementType);
  throw Error(f.path() + ": metadata key " + key + ": expected " + expected + ", found " + found);
}

uint64_t asUint(const GgufFile& f, const std::string& key, const GgufValue& v) {
  if (!v.isInteger()) wrongType(f, key, v, "an integer");
  const bool isSigned = v.type == GgufValueType::Int8 || v.type == GgufValueType::Int16 ||
                        v.type == GgufValueType::Int32 || v.type == GgufValueType::Int64;
  if (!isSigned) return v.u;
  check(v.i >= 0, f.path() + ": metadata key " + key + " = " + std::to_string(v.i) + ": expected a non-negative value");
  return uint64_t(v.i);
}

double asFloat(const GgufFile& f, const std::string& key, const GgufValue& v) {
  if (v.isFloat()) return v.f;
  if (v.isInteger()) return v.type == GgufValueType::Int8 || v.type == GgufValueType::Int16 ||
                                    v.type == GgufValueType::Int32 || v.type == GgufValueType::Int64
                                ? double(v.i) : double(v.u);
  wrongType(f, key, v, "a number");
}

const GgufValue& requireArray(const GgufFile& f, const std::string& key) {
  const GgufValue& v = require(f, key);
  if (v.type != GgufValueType::Array) wrongType(f, key, v, "an array");
  return v;
}

}  // namespace

std::string GgufFile::getString(const std::string& key) const {
  const GgufValue& v = require(*this, key);
  if (v.type != GgufValueType::String) wrongType(*this, key, v, "a string");
  return v.s;
}

uint64_t GgufFile::getUint(const std::string& key) const { return asUint(*this, key, require(*this, key)); }

uint64_t GgufFile::getUintOr(const std::string& key, uint64_t fallback) const {
  const GgufValue* v = find(key);
  return v ? asUint(*this, key, *v) : fallback;
}

double GgufFile::getFloat(const std::string& key) const { return asFloat(*this, key, require(*this, key)); }

double GgufFile::getFloatOr(const std::string& key, double fallback) const {
  const GgufValue* v = find(key);
  return v ? asFloat(*this, key, *v) : fallback;
}

std::vector<std::string> GgufFile::getStringArray(const std::string& key) const {
  const GgufValue& v = requireArray(*this, key);
  if (v.elementType != GgufValueType::String) wrongType(*this, key, v, "an array of string");
  std::vector<std::string> out;
  out.reserve(v.array.size());
  for (const GgufValue& e : v.array) out.push_back(e.s);
  return out;
}

std::vector<double> GgufFile::getFloatArray(const std::string& key) const {
  const GgufValue& v = requireArray(*this, key);
  std::vector<double> out;
  out.reserve(v.array.size());
  for (const GgufValue& e : v.array) out.push_back(asFloat(*this, key, e));
  return out;
}

std::vector<int64_t> GgufFile::getIntArray(const std::string& key) const {
  const GgufValue& v = requireArray(*this, key);
  std::vector<int64_t> out;
  out.reserve(v.array.size());
  for (const GgufValue& e : v.array) {
    if (!e.isInteger()) wrongType(*this, key, v, "an array of integers");
    out.push_back(e.type == GgufValueType::Uint64 || e.type == GgufValueType::Uint32 ||
                          e.type == GgufValueType::Uint16 || e.type == GgufValueType::Uint8
                      ? int64_t(e.u) : e.i);
  }
  return out;
}

}  // namespace lwb
