// AVX2 + FMA + F16C kernels (W = 8): dot products and elementwise; the GEMM is in
// gemm_avx2.cpp, attention in kernels_attention_avx2.cpp. Standard headers come before the
// target region (avx2_region.h) so that no inline library code is emitted with AVX2
// instructions for use elsewhere.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/exec/cpu/kernels.h"

#if defined(__x86_64__)
#include "engine/exec/cpu/avx2_region.h"

LWB_AVX2_BEGIN
#include <immintrin.h>

namespace lwb {
namespace avx2 {
// The GEMM tiles (gemm_avx2.cpp): CpuKernels::gemmBlock.
void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols);
}  // namespace avx2

namespace {

constexpr int kW = 8;

template <DType D>
inline __m256 loadW(const void* base, size_t i) {
  if constexpr (D == DType::F32) {
    return _mm256_loadu_ps(static_cast<const float*>(base) + i);
  } else {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(base) + i));
    if constexpr (D == DType::BF16) return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    else return _mm256_cvtph_ps(h);
  }
}

// The tail chunk (n < 8 elements) copied into a zeroed buffer: lanes past n are zero.
template <DType D>
inline __m256 loadWTail(const void* base, size_t i, int n) {
  alignas(32) uint32_t buf[kW] = {};
  const size_t bytes = dtypeSize(D);
  std::memcpy(buf, static_cast<const char*>(base) + i * bytes, size_t(n) * bytes);
  return loadW<D>(buf, 0);
}

inline __m256 loadTail(const float* p, int n) { return loadWTail<DType::F32>(p, 0, n); }

// Fixed order: 8 → 4 → 2 → 1 lanes, adding the upper half to the lower.
inline float hsum(__m256 v) {
  const __m128 b = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));
  const __m128 d = _mm_add_ss(c, _mm_movehdup_ps(c));
  return _mm_cvtss_f32(d);
}

float dot(const float* a, const float* b, int n) {
  __m256 acc = _mm256_setzero_ps();
  int i = 0;
  for (; i + kW <= n; i += kW) acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc);
  if (i < n) acc = _mm256_fmadd_ps(loadTail(a + i, n - i), loadTail(b + i, n - i), acc);
  return hsum(acc);
}

void axpy(float alpha, const float* x, float* y, int n) {
  const __m256 av = _mm256_set1_ps(alpha);
  int i = 0;
  for (; i + kW <= n; i += kW)
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  if (i < n) {
    alignas(32) float out[kW];
    _mm256_store_ps(out, _mm256_fmadd_ps(av, loadTail(x + i, n - i), loadTail(y + i, n - i)));
    std::memcpy(y + i, out, size_t(n - i) * sizeof(float));
  }
}

// exp(x) for x <= 0; the same Cephes expf scheme as the AVX-512 kernels.
inline __m256 expNonPositive(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
  const __m256 fx = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500E-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507E-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073E-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894E-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459E-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201E-1f));
  const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  const __m256i pow2 = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(y, _mm256_castsi256_ps(pow2));
}

float expAndSum(float* s, int n, float max) {
  const __m256 mv = _mm256_set1_ps(max);
  __m256 acc = _mm256_setzero_ps();
  int i = 0;
  for (; i + kW <= n; i += kW) {
    const __m256 e = expNonPositive(_mm256_sub_ps(_mm256_loadu_ps(s + i), mv));
    _mm256_storeu_ps(s + i, e);
    acc = _mm256_add_ps(acc, e);
  }
  if (i < n) {
    alignas(32) float buf[kW];
    _mm256_store_ps(buf, expNonPositive(_mm256_sub_ps(loadTail(s + i, n - i), mv)));
    for (int j = n - i; j < kW; ++j) buf[j] = 0.0f;
    std::memcpy(s + i, buf, size_t(n - i) * sizeof(float));
    acc = _mm256_add_ps(acc, _mm256_load_ps(buf));
  }
  return hsum(acc);
}

// silu(g) = g * sigmoid(g), sigmoid from e = exp(-|g|) so the exponent never overflows.
inline __m256 silu(__m256 g) {
  const __m256 absG = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), g);
  const __m256 e = expNonPositive(_mm256_sub_ps(_mm256_setzero_ps(), absG));
  const __m256 onePlusE = _mm256_add_ps(_mm256_set1_ps(1.0f), e);
  const __m256 negative = _mm256_cmp_ps(g, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 numer = _mm256_blendv_ps(_mm256_set1_ps(1.0f), e, negative);
  return _mm256_mul_ps(g, _mm256_div_ps(numer, onePlusE));
}

void siluMul(const float* gate, const float* up, float* out, int n) {
  int i = 0;
  for (; i + kW <= n; i += kW)
    _mm256_storeu_ps(out + i, _mm256_mul_ps(silu(_mm256_loadu_ps(gate + i)), _mm256_loadu_ps(up + i)));
  if (i < n) {
    alignas(32) float buf[kW];
    _mm256_store_ps(buf, _mm256_mul_ps(silu(loadTail(gate + i, n - i)), loadTail(up + i, n - i)));
    std::memcpy(out + i, buf, size_t(n - i) * sizeof(float));
  }
}

}  // namespace

const CpuKernels& avx2Kernels() {
  static const CpuKernels k{Isa::Avx2,     &avx2::gemmBlock, &dot,    &axpy, &expAndSum, &siluMul, &avx2AttendRow,
                            nullptr /* panelGroup */, &avx2WidenKv};
  return k;
}

}  // namespace lwb
LWB_AVX2_END

#else
namespace lwb {
const CpuKernels& avx2Kernels() { return scalarKernels(); }
}  // namespace lwb
#endif
