#include "engine/sample/row_scan.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lwb {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The portable versions: lanes the compiler packs (x > m ? x : m is exactly maxps).
__attribute__((target_clones("arch=x86-64-v3", "default"))) float rowMaxPortable(const float* z, int n) {
  float lane[kScanLanes];
  std::fill(lane, lane + kScanLanes, kNegInf);
  int i = 0;
  for (; i + kScanLanes <= n; i += kScanLanes)
    for (int j = 0; j < kScanLanes; ++j) lane[j] = z[i + j] > lane[j] ? z[i + j] : lane[j];
  float m = kNegInf;
  for (; i < n; ++i) m = z[i] > m ? z[i] : m;
  for (float v : lane) m = v > m ? v : m;
  return m;
}

// Blocks without a hit are skipped after one packed compare; a block with one is
// written branch-free (a flat row keeps most of them).
int gatherPortable(const float* z, int begin, int end, float floor, int* out) {
  int count = 0;
  for (int block = begin; block < end; block += kScanLanes) {
    const int blockEnd = std::min(end, block + kScanLanes);
    int hits = 0;
    for (int i = block; i < blockEnd; ++i) hits |= int(z[i] >= floor);
    if (!hits) continue;
    for (int i = block; i < blockEnd; ++i) {
      out[count] = i;
      count += int(z[i] >= floor);
    }
  }
  return count;
}

__attribute__((target_clones("arch=x86-64-v3", "default"))) int equalMasksPortable(const uint16_t* v, int numBlocks,
                                                                                   uint16_t value, uint32_t* masks) {
  int count = 0;
  for (int k = 0; k < numBlocks; ++k) {
    uint32_t m = 0;
    for (int i = 0; i < 32; ++i) m |= uint32_t(v[k * 32 + i] == value) << i;
    masks[k] = m;
    count += std::popcount(m);
  }
  return count;
}

#if defined(__x86_64__)
bool detectAvx512() {
  // LWB_CPU_ISA=avx2|scalar caps the sampler as it caps the CPU executor, so that the
  // portable scans are tested on this machine too (ctest's tst_*_portable).
  const char* cap = std::getenv("LWB_CPU_ISA");
  if (cap && (std::strcmp(cap, "avx2") == 0 || std::strcmp(cap, "scalar") == 0)) return false;
  __builtin_cpu_init();  // this runs as a static initializer, possibly before libgcc's
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("popcnt");
}
const bool kHasAvx512 = detectAvx512();

// maxps(x, m) returns m when x is NaN: NaN never enters the accumulators.
__attribute__((target("avx512f"))) float rowMaxAvx512(const float* z, int n) {
  __m512 m0 = _mm512_set1_ps(kNegInf), m1 = m0, m2 = m0, m3 = m0;
  int i = 0;
  for (; i + 64 <= n; i += 64) {
    m0 = _mm512_max_ps(_mm512_loadu_ps(z + i), m0);
    m1 = _mm512_max_ps(_mm512_loadu_ps(z + i + 16), m1);
    m2 = _mm512_max_ps(_mm512_loadu_ps(z + i + 32), m2);
    m3 = _mm512_max_ps(_mm512_loadu_ps(z + i + 48), m3);
  }
  for (; i + 16 <= n; i += 16) m0 = _mm512_max_ps(_mm512_loadu_ps(z + i), m0);
  float m = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
  for (; i < n; ++i) m = z[i] > m ? z[i] : m;
  return m;
}

// The product and the max in one pass over the row.
__attribute__((target("avx512f"))) float scaleRowMaxAvx512(float* z, int n, float factor) {
  const __m512 f = _mm512_set1_ps(factor);
  __m512 m0 = _mm512_set1_ps(kNegInf), m1 = m0;
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a = _mm512_mul_ps(_mm512_loadu_ps(z + i), f), b = _mm512_mul_ps(_mm512_loadu_ps(z + i + 16), f);
    _mm512_storeu_ps(z + i, a);
    _mm512_storeu_ps(z + i + 16, b);
    m0 = _mm512_max_ps(a, m0);
    m1 = _mm512_max_ps(b, m1);
  }
  float m = _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
  for (; i < n; ++i) {
    z[i] *= factor;
    m = z[i] > m ? z[i] : m;
  }
  return m;
}

__attribute__((target("avx512f"))) int firstEqualAvx512(const float* z, int n, float value) {
  const __m512 v = _mm512_set1_ps(value);
  int i = 0;
  for (; i + 16 <= n; i += 16)
    if (const __mmask16 hit = _mm512_cmp_ps_mask(_mm512_loadu_ps(z + i), v, _CMP_EQ_OQ))
      return i + std::countr_zero(unsigned(hit));
  for (; i < n; ++i)
    if (z[i] == value) return i;
  return -1;
}

// 16 ids per compare, compressed and stored full width (the slack takes the lanes past
// the count), without a branch: rows where blocks hit at random would mispredict it.
__attribute__((target("avx512f,popcnt"))) int gatherAvx512(const float* z, int begin, int end, float floor, int* out) {
  const __m512 bound = _mm512_set1_ps(floor);
  __m512i ids = _mm512_add_epi32(_mm512_set1_epi32(begin),
                                 _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  int count = 0, i = begin;
  for (; i + 16 <= end; i += 16, ids = _mm512_add_epi32(ids, _mm512_set1_epi32(16))) {
    const __mmask16 hit = _mm512_cmp_ps_mask(_mm512_loadu_ps(z + i), bound, _CMP_GE_OQ);  // NaN: no hit
    _mm512_storeu_si512(out + count, _mm512_maskz_compress_epi32(hit, ids));
    count += std::popcount(unsigned(hit));
  }
  return count + gatherPortable(z, i, end, floor, out + count);
}

__attribute__((target("avx512f,avx512bw,popcnt"))) int equalMasksAvx512(const uint16_t* v, int numBlocks, uint16_t value,
                                                                        uint32_t* masks) {
  const __m512i x = _mm512_set1_epi16(short(value));
  int count = 0;
  for (int k = 0; k < numBlocks; ++k) {
    masks[k] = _mm512_cmpeq_epi16_mask(_mm512_loadu_si512(v + 32 * k), x);
    count += std::popcount(masks[k]);
  }
  return count;
}
#else
constexpr bool kHasAvx512 = false;
#endif

}  // namespace

float rowMax(const float* z, int n) {
#if defined(__x86_64__)
  if (kHasAvx512) return rowMaxAvx512(z, n);
#endif
  return rowMaxPortable(z, n);
}

int rowArgmax(const float* z, int n) {
  const float m = rowMax(z, n);
#if defined(__x86_64__)
  if (kHasAvx512) return std::max(0, firstEqualAvx512(z, n, m));
#endif
  for (int block = 0; block < n; block += kScanLanes) {
    const int end = std::min(n, block + kScanLanes);
    int hits = 0;
    for (int i = block; i < end; ++i) hits |= int(z[i] == m);
    if (!hits) continue;
    for (int i = block; i < end; ++i)
      if (z[i] == m) return i;
  }
  return 0;  // every value NaN
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void scaleRow(float* z, int n,
                                                                                          float factor) {
  for (int i = 0; i < n; ++i) z[i] *= factor;
}

float scaleRowMax(float* z, int n, float factor) {
#if defined(__x86_64__)
  if (kHasAvx512) return scaleRowMaxAvx512(z, n, factor);
#endif
  scaleRow(z, n, factor);
  return rowMaxPortable(z, n);
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) int countAtLeast(const float* z, int n,
                                                                                             float floor) {
  int count = 0;
  for (int i = 0; i < n; ++i) count += int(z[i] >= floor);
  return count;
}

int gatherAtLeast(const float* z, int begin, int end, float floor, int* out) {
#if defined(__x86_64__)
  if (kHasAvx512) return gatherAvx512(z, begin, end, floor, out);
#endif
  return gatherPortable(z, begin, end, floor, out);
}

int equalMasks(const uint16_t* v, int numBlocks, uint16_t value, uint32_t* masks) {
#if defined(__x86_64__)
  if (kHasAvx512) return equalMasksAvx512(v, numBlocks, value, masks);
#endif
  return equalMasksPortable(v, numBlocks, value, masks);
}

}  // namespace lwb
