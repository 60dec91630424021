#pragma once
// The ISA-independent driver of CpuKernels::attendRow (order in kernels.h): scores of up
// to 4 heads at a time, softmax per head, then Σ p·V of up to 4 heads at a time. Each
// SIMD kernels file includes it inside its target region and passes its own tiles as
// `Tiles<T>`: scores<GN>, accumulate<GN> (GN = 1..4 heads), maxOf and expAndSum, for KV
// elements T = float (f32 cache), uint16_t (bf16 cache) or Fp8E4m3 / Fp8E5m2 (FP8 caches),
// the last three widened to f32 exactly on load. Include it
// after the standard headers (as those files do), so no library code is compiled for a
// target here.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "engine/exec/cpu/kernels.h"

namespace lwb::detail {
// Unnamed: each kernel file compiles its own copy for its ISA, and no copy may be linked in
// for another file (see attendRowKv).
namespace {

// The V rows of positions 0, 1, 2, ... of one KV head, columns from i0: next() moves
// down a block and jumps to the next block of the table every blockSize rows. The
// Σ p·V tiles walk their positions with it in one flat loop (a nested block/slot loop
// makes GCC store the tiles' accumulators every iteration). T: the cache's element type.
template <typename T>
class PagedRows {
 public:
  PagedRows(const PagedKv& kv, int i0)
      : table_(kv.blockTable), base_(static_cast<const T*>(kv.v) + size_t(i0)), blockStride_(kv.vBlockStride),
        ldv_(kv.ldv), blockSize_(kv.blockSize), slot_(kv.blockSize) {}
  const T* next() {
    if (slot_ == blockSize_) {
      slot_ = 0;
      row_ = base_ + size_t(*table_++) * blockStride_;
    } else {
      row_ += ldv_;
    }
    ++slot_;
    return row_;
  }

 private:
  const int32_t* table_;
  const T* base_;
  const T* row_ = nullptr;
  size_t blockStride_, ldv_;
  int blockSize_, slot_;
};

// Calls fn.operator()<GN>(g) for g = 0, 4, 8, ... with GN = min(4, G - g).
template <typename Fn>
inline void forHeadGroups(int G, Fn&& fn) {
  for (int g = 0; g < G; g += 4) {
    switch (std::min(4, G - g)) {
      case 1: fn.template operator()<1>(g); break;
      case 2: fn.template operator()<2>(g); break;
      case 3: fn.template operator()<3>(g); break;
      default: fn.template operator()<4>(g); break;
    }
  }
}

template <typename Tiles>
void attendRow(const float* q, int G, int d, const PagedKv& kv, int n, float scale, float* scratch, float* out) {
  const size_t lds = scoreStride(n);
  float* invSum = scratch;
  float* scores = scratch + G;
  forHeadGroups(G, [&]<int GN>(int g) {
    Tiles::template scores<GN>(q + size_t(g) * size_t(d), d, kv, n, scale, scores + size_t(g) * lds, lds);
  });
  for (int g = 0; g < G; ++g) {
    float* sg = scores + size_t(g) * lds;
    invSum[g] = 1.0f / Tiles::expAndSum(sg, n, Tiles::maxOf(sg, n));
  }
  forHeadGroups(G, [&]<int GN>(int g) {
    Tiles::template accumulate<GN>(scores + size_t(g) * lds, lds, kv, n, d, invSum + g, out + size_t(g) * size_t(d));
  });
}

// attendRow with the tiles of the cache's element type (kv.type: F32, BF16, F8E4M3, F8E5M2).
// This header's code once had external linkage: GCC 12 emitted the generic lambda below as
// a weak symbol whose mangled name was the same in every kernel file (their tile types
// lived in unnamed namespaces, which mangle alike), so the linker kept one ISA's copy for
// all of them (the AVX-512 one ran on AVX2-only CPUs: SIGILL). Now the whole header sits in
// an unnamed namespace and each ISA names its tiles after itself (Avx2AttentionTiles, ...);
// tools/check-isa-symbols.py fails the build's tests when two kernel files share a symbol.
template <template <typename> class Tiles>
void attendRowKv(const float* q, int G, int d, const PagedKv& kv, int n, float scale, float* scratch, float* out) {
  forKvElement(kv.type, [&]<typename T>() { attendRow<Tiles<T>>(q, G, d, kv, n, scale, scratch, out); });
}

// CpuKernels::widenKv with an ISA's Widen<T>::run(const T* src, size_t n, float* dst), named
// after the ISA as the tiles are (above).
template <template <typename> class Widen>
void widenKvAs(DType type, const void* src, size_t n, float* dst) {
  forKvElement(type, [&]<typename T>() { Widen<T>::run(static_cast<const T*>(src), n, dst); });
}

}  // namespace
}  // namespace lwb::detail
