#pragma once
// Packed scans over a row of logits (152k entries for Qwen): AVX-512 where the CPU has
// it (checked once), else loops the compiler vectorizes for AVX2 or baseline x86-64.
// Every version returns the same result: compares, max and single products are exact.
#include <cstdint>

namespace lwb {

// Ids are written in blocks of this many, so a buffer for them needs this much slack.
constexpr int kScanLanes = 16;

// The largest value of a row (NaN ignored; -inf when there is none) and the lowest id
// holding it (0 when every value is NaN).
float rowMax(const float* z, int n);
int rowArgmax(const float* z, int n);

// z[i] *= factor (1/temperature); scaleRowMax returns rowMax of the result, in one pass.
void scaleRow(float* z, int n, float factor);
float scaleRowMax(float* z, int n, float factor);

// How many of z[0, n) are >= floor (NaN: none).
int countAtLeast(const float* z, int n, float floor);

// The ids in [begin, end) with z >= floor, in order, written from `out` on (which must
// have kScanLanes entries of slack past end - begin); returns their count.
int gatherAtLeast(const float* z, int begin, int end, float floor, int* out);

// For each block of 32 entries of v, a mask of those equal to `value` (bit i: v[32k + i]);
// returns how many there are.
int equalMasks(const uint16_t* v, int numBlocks, uint16_t value, uint32_t* masks);

}  // namespace lwb
