#pragma once
// How the GEMM kernels of every SIMD ISA (gemm_avx2.cpp, gemm_avx512.cpp) cut a block of
// rows and columns into register tiles: balanced, so that no thin remainder tile, which
// runs at a fraction of a full tile's rate, is left. Performance only: each output's order
// of operations does not depend on the tiles (kernels.h). Include it inside the kernel
// file's target region: its functions are compiled with that ISA, so the tiles' calls
// inline, and an unnamed namespace keeps each file's copy its own (one linked for AVX-512
// must not serve an AVX2-only CPU).
#include "engine/exec/cpu/kernels.h"

namespace lwb::tiles {
namespace {

// Part i of n split into numParts balanced parts (the first n % numParts one larger).
inline int partSize(int n, int numParts, int i) { return n / numParts + (i < n % numParts ? 1 : 0); }

// Calls fn(c, np) for the panel groups of [col0, colEnd): np <= maxPanels panels starting at
// column c, as few groups as that allows, of balanced sizes.
template <typename Fn>
void forPanelGroups(int col0, int colEnd, int maxPanels, Fn&& fn) {
  const int numPanels = (colEnd - col0 + kPanel - 1) / kPanel, numGroups = (numPanels + maxPanels - 1) / maxPanels;
  for (int g = 0, c = col0; g < numGroups; ++g) {
    const int np = partSize(numPanels, numGroups, g);
    fn(c, np);
    c += np * kPanel;
  }
}

// Calls fn(r, nr) for balanced row tiles of at most maxRows rows covering [row0, row0 + numRows).
template <typename Fn>
void forRowTiles(int row0, int numRows, int maxRows, Fn&& fn) {
  const int numTiles = (numRows + maxRows - 1) / maxRows;
  for (int i = 0, r = row0; i < numTiles; ++i) {
    const int nr = partSize(numRows, numTiles, i);
    fn(r, nr);
    r += nr;
  }
}

}  // namespace
}  // namespace lwb::tiles
