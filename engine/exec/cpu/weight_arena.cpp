#include "engine/exec/cpu/weight_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

#include "engine/common/error.h"

namespace lwb {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;

size_t roundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

std::shared_ptr<uint8_t> allocateOwned(size_t bytes, size_t alignment, const std::string& what) {
  void* p = std::aligned_alloc(alignment, bytes);
  check(p != nullptr, what + ": out of memory for " + std::to_string(bytes) + " bytes");
  return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [](uint8_t* q) { std::free(q); });
}

}  // namespace

std::shared_ptr<uint8_t> WeightArena::allocate(size_t bytes, const std::string& what) {
  const size_t need = roundUp(std::max<size_t>(bytes, 1), 64);
  if (chunk_ == nullptr || size_ - used_ < need) {
    size_ = roundUp(std::max(chunkBytes_, need), kHugePage);
    chunk_ = allocateOwned(size_, kHugePage, what);
    // Advice only: it fails harmlessly (EINVAL) on a kernel built without THP.
    madvise(chunk_.get(), size_, MADV_HUGEPAGE);
    used_ = 0;
  }
  std::shared_ptr<uint8_t> piece(chunk_, chunk_.get() + used_);  // shares the chunk's ownership
  used_ += need;
  return piece;
}

std::shared_ptr<uint8_t> allocateAligned(size_t bytes, const std::string& what) {
  return allocateOwned(roundUp(std::max<size_t>(bytes, 1), 64), 64, what);
}

}  // namespace lwb
