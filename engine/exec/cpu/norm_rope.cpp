#include "engine/exec/cpu/norm_rope.h"

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
  for (int i = 0; i < n; ++i) out[i] = weightValue(table, dtype, base + size_t(i));
}

void rmsNormRow(const float* x, const WeightVector& w, float eps, float* y) {
  double sumSquares = 0.0;
  for (int i = 0; i < w.size; ++i) sumSquares += double(x[i]) * double(x[i]);
  const float inv = float(1.0 / std::sqrt(sumSquares / double(w.size) + double(eps)));
  if (w.dtype == DType::F32) {
    const float* wf = static_cast<const float*>(w.data);
    for (int i = 0; i < w.size; ++i) y[i] = (x[i] * inv) * wf[i];
    return;
  }
  for (int i = 0; i < w.size; ++i) y[i] = (x[i] * inv) * weightValue(w.data, w.dtype, size_t(i));
}

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
