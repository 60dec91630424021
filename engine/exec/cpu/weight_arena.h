#pragma once
// Where the CPU executor keeps its packed weights: 64-byte-aligned pieces of large chunks
// that are 2 MiB aligned and advised to transparent huge pages (for a kernel whose THP mode
// is "madvise", a common default). A decode step streams every weight once; on 4 KiB pages
// the default model's 21 MiB of bf16 weights span 5,376 pages, more than an L2 TLB of a
// few thousand entries holds, so every page costs a table walk; on 2 MiB pages they are 11
// (`bench_cpu --only austen --batches 8` measures it). Where THP is off the advice is
// ignored and the pages stay 4 KiB: the same bytes, only slower.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace lwb {

class WeightArena {
 public:
  // chunkBytes: the size of a fresh chunk (a piece larger than that gets a chunk of its own).
  explicit WeightArena(size_t chunkBytes = size_t(64) << 20) : chunkBytes_(chunkBytes) {}

  // `bytes` uninitialised bytes, 64-byte aligned. A chunk is freed once every piece of it
  // is (each piece shares ownership of its chunk), so a piece may outlive the arena.
  // Throws lwb::Error naming `what` when the memory cannot be had.
  std::shared_ptr<uint8_t> allocate(size_t bytes, const std::string& what);

 private:
  size_t chunkBytes_;
  std::shared_ptr<uint8_t> chunk_;
  size_t used_ = 0, size_ = 0;
};

// One piece outside any arena (exactly `bytes` rounded up to 64, 4 KiB pages): the tests'
// and benchmarks' single matrices.
std::shared_ptr<uint8_t> allocateAligned(size_t bytes, const std::string& what);

}  // namespace lwb
