#include "engine/exec/cpu/norm_rope.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace lwb {

float weightValue(const void* data, DType dtype, size_t i) {
  switch (dtype) {
    case DType::F32: {
      float f;
      std::memcpy(&f, static_cast<const char*>(data) + 4 * i, 4);
      return f;
    }
    case DType::BF16: return bf16ToFloat(static_cast<const uint16_t*>(data)[i]);
    case DType::F16: return f16ToFloat(static_cast<const uint16_t*>(data)[i]);
    case DType::F8E4M3:
    case DType::F8E5M2: break;  // KV cache types, never a weight's (parseDType refuses them)
  }
  return 0.0f;
}

void embeddingRow(const void* table, DType dtype, int row, int n, float* out) {
  const size_t base = size_t(row) * size_t(n);
  if (dtype == DType::F32) {
    std::memcpy(out, static_cast<const float*>(table) + base, size_t(n) * sizeof(float));
    return;
  }
  // 16-bit tables widened in a loop of their own, not through weightValue's switch per
  // element: a decode step embeds its few rows on the caller alone.
  const uint16_t* src = static_cast<const uint16_t*>(table) + base;
  if (dtype == DType::BF16)
    for (int i = 0; i < n; ++i) out[i] = bf16ToFloat(src[i]);
  else if (dtype == DType::F16)
    for (int i = 0; i < n; ++i) out[i] = f16ToFloat(src[i]);
  else
    for (int i = 0; i < n; ++i) out[i] = weightValue(table, dtype, base + size_t(i));
}

namespace {

// N rows' sums of squares advance together, one double chain per row: a chain's adds wait
// on each other (the latency), the rows' chains do not, so N rows take about the time of
// one. Each row's chain is the same sequence of operations as alone.
template <int N>
void sumSquaresGroup(const float* const* x, int n, double* sums) {
  double sum[N];
  for (int r = 0; r < N; ++r) sum[r] = 0.0;
  for (int i = 0; i < n; ++i)
    for (int r = 0; r < N; ++r) sum[r] += double(x[r][i]) * double(x[r][i]);
  for (int r = 0; r < N; ++r) sums[r] = sum[r];
}

void sumSquares(const float* const* x, int numRows, int n, double* sums) {
  switch (numRows) {
    case 8: return sumSquaresGroup<8>(x, n, sums);
    case 7: return sumSquaresGroup<7>(x, n, sums);
    case 6: return sumSquaresGroup<6>(x, n, sums);
    case 5: return sumSquaresGroup<5>(x, n, sums);
    case 4: return sumSquaresGroup<4>(x, n, sums);
    case 3: return sumSquaresGroup<3>(x, n, sums);
    case 2: return sumSquaresGroup<2>(x, n, sums);
    default: return sumSquaresGroup<1>(x, n, sums);
  }
}

}  // namespace

void rmsNormRows(const float* const* x, float* const* y, int numRows, const WeightVector& w, float eps) {
  for (int r0 = 0; r0 < numRows; r0 += kNormGroup) {
    const int count = std::min(kNormGroup, numRows - r0);
    double sums[kNormGroup];
    sumSquares(x + r0, count, w.size, sums);
    for (int r = 0; r < count; ++r) {
      const float inv = float(1.0 / std::sqrt(sums[r] / double(w.size) + double(eps)));
      const float* xr = x[r0 + r];
      float* yr = y[r0 + r];
      if (w.dtype == DType::F32) {
        const float* wf = static_cast<const float*>(w.data);
        for (int i = 0; i < w.size; ++i) yr[i] = (xr[i] * inv) * wf[i];
      } else {  // the CPU executor widens 16-bit norm weights once (normVector)
        for (int i = 0; i < w.size; ++i) yr[i] = (xr[i] * inv) * weightValue(w.data, w.dtype, size_t(i));
      }
    }
  }
}

void rmsNormRows(const float* x, size_t ldx, int numRows, const WeightVector& w, float eps, float* y, size_t ldy) {
  const float* xs[kNormGroup];
  float* ys[kNormGroup];
  for (int r0 = 0; r0 < numRows; r0 += kNormGroup) {
    const int n = std::min(kNormGroup, numRows - r0);
    for (int r = 0; r < n; ++r) xs[r] = x + size_t(r0 + r) * ldx, ys[r] = y + size_t(r0 + r) * ldy;
    rmsNormRows(xs, ys, n, w, eps);
  }
}

void rmsNormRow(const float* x, const WeightVector& w, float eps, float* y) { rmsNormRows(&x, &y, 1, w, eps); }

void ropeAngles(int pos, const std::vector<float>& invFreq, float* cosOut, float* sinOut) {
  for (size_t i = 0; i < invFreq.size(); ++i) {
    const float angle = float(pos) * invFreq[i];
    cosOut[i] = float(std::cos(double(angle)));
    sinOut[i] = float(std::sin(double(angle)));
  }
}

void applyRope(float* v, int numHeads, int headDim, const float* cosv, const float* sinv) {
  const int half = headDim / 2;
  for (int h = 0; h < numHeads; ++h) {
    float* p = v + size_t(h) * size_t(headDim);
    for (int i = 0; i < half; ++i) {
      const float a = p[i], b = p[i + half];
      const float ac = a * cosv[i], bs = b * sinv[i], bc = b * cosv[i], as = a * sinv[i];
      p[i] = ac - bs;
      p[i + half] = bc + as;
    }
  }
}

}  // namespace lwb
