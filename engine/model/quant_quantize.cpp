// f32 → ggml blocks. Q8_0 and Q8_K quantize activations for the dot-product kernels
// (symmetric, |q| <= 127 so the kernels' sign tricks never meet -128); Q4_0 and Q4_K
// quantize weights at load time. Plain round-to-nearest against the block's range:
// simple and deterministic; the dequantized weights are what the model then computes
// with, and the tests measure logits against exactly those.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/common/dtype.h"
#include "engine/common/error.h"
#include "engine/model/quant.h"

namespace lwb {

namespace {

float maxAbs(const float* x, int n) {
  float amax = 0.0f;
  for (int i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
  return amax;
}

int roundClamp(float v, int lo, int hi) { return std::clamp(int(std::lrintf(v)), lo, hi); }

// Packs 6-bit scales and mins of the 8 sub-blocks into 12 bytes (inverse of unpackScaleMinK4).
void packScaleMinK4(const uint8_t sc[8], const uint8_t m[8], uint8_t* q) {
  std::memset(q, 0, 12);
  for (int j = 0; j < 4; ++j) {
    q[j] = sc[j];
    q[j + 4] = m[j];
  }
  for (int j = 4; j < 8; ++j) {
    q[j + 4] = uint8_t((sc[j] & 0xF) | ((m[j] & 0xF) << 4));
    q[j - 4] |= uint8_t((sc[j] >> 4) << 6);
    q[j] |= uint8_t((m[j] >> 4) << 6);
  }
}

}  // namespace

void quantizeBlockQ8_0(const float* x, BlockQ8_0* out) {
  const float d = maxAbs(x, kQk) / 127.0f;
  const float id = d > 0.0f ? 1.0f / d : 0.0f;
  out->d = floatToF16(d);
  for (int j = 0; j < kQk; ++j) out->qs[j] = int8_t(roundClamp(x[j] * id, -127, 127));
}

void quantizeBlockQ8_K(const float* x, BlockQ8_K* out) {
  const float d = maxAbs(x, kQkK) / 127.0f;
  const float id = d > 0.0f ? 1.0f / d : 0.0f;
  out->d = d;
  for (int j = 0; j < kQkK; ++j) out->qs[j] = int8_t(roundClamp(x[j] * id, -127, 127));
  for (int g = 0; g < kQkK / 16; ++g) {
    int sum = 0;
    for (int l = 0; l < 16; ++l) sum += out->qs[16 * g + l];
    out->bsums[g] = int16_t(sum);
  }
}

// The signed extreme maps to -8, so the block's whole range [-8d, 7d] is used.
void quantizeBlockQ4_0(const float* x, BlockQ4_0* out) {
  float extreme = 0.0f;
  for (int j = 0; j < kQk; ++j)
    if (std::fabs(x[j]) > std::fabs(extreme)) extreme = x[j];
  const float d = extreme / -8.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  out->d = floatToF16(d);
  for (int j = 0; j < kQk / 2; ++j) {
    const int lo = roundClamp(x[j] * id + 8.0f, 0, 15), hi = roundClamp(x[j + kQk / 2] * id + 8.0f, 0, 15);
    out->qs[j] = uint8_t(lo | (hi << 4));
  }
}

// Per sub-block of 32: the range [min(0, lo), hi] in 15 steps; the 8 steps and 8 offsets
// are then quantized to 6 bits against the super-block's d and dmin, and the nibbles
// chosen against the scales as stored (so rounding of the scales is not doubled).
void quantizeBlockQ4_K(const float* x, BlockQ4_K* out) {
  float step[8], offset[8];
  for (int j = 0; j < 8; ++j) {
    const float* s = x + 32 * j;
    const float lo = std::min(0.0f, *std::min_element(s, s + 32)), hi = *std::max_element(s, s + 32);
    step[j] = (hi - lo) / 15.0f;
    offset[j] = -lo;
  }
  const float d = *std::max_element(step, step + 8) / 63.0f;
  const float dmin = *std::max_element(offset, offset + 8) / 63.0f;
  out->d = floatToF16(d);
  out->dmin = floatToF16(dmin);
  uint8_t sc[8], m[8];
  for (int j = 0; j < 8; ++j) {
    sc[j] = uint8_t(d > 0.0f ? roundClamp(step[j] / d, 0, 63) : 0);
    m[j] = uint8_t(dmin > 0.0f ? roundClamp(offset[j] / dmin, 0, 63) : 0);
  }
  packScaleMinK4(sc, m, out->scales);
  const float dq = halfToFloat(out->d), mq = halfToFloat(out->dmin);
  uint8_t q[kQkK];
  for (int j = 0; j < 8; ++j) {
    const float scale = dq * sc[j], shift = mq * m[j];
    const float inv = scale > 0.0f ? 1.0f / scale : 0.0f;
    for (int l = 0; l < 32; ++l) q[32 * j + l] = uint8_t(roundClamp((x[32 * j + l] + shift) * inv, 0, 15));
  }
  for (int g = 0; g < 4; ++g)
    for (int l = 0; l < 32; ++l) out->qs[32 * g + l] = uint8_t(q[64 * g + l] | (q[64 * g + 32 + l] << 4));
}

bool canQuantize(GgmlType type) {
  return type == GgmlType::Q8_0 || type == GgmlType::Q4_0 || type == GgmlType::Q4_K || type == GgmlType::Q8_K;
}

void quantizeRow(GgmlType type, const float* src, void* dst, int64_t n) {
  check(canQuantize(type), "quantizeRow: cannot quantize to " + ggmlTypeName(type));
  const int bs = ggmlBlockSize(type);
  check(n >= 0 && n % bs == 0, "quantizeRow: " + ggmlTypeName(type) + " rows need a multiple of " +
                                   std::to_string(bs) + " elements, got " + std::to_string(n));
  for (int64_t i = 0; i < n / bs; ++i) {
    const float* x = src + i * bs;
    switch (type) {
      case GgmlType::Q8_0: quantizeBlockQ8_0(x, static_cast<BlockQ8_0*>(dst) + i); break;
      case GgmlType::Q4_0: quantizeBlockQ4_0(x, static_cast<BlockQ4_0*>(dst) + i); break;
      case GgmlType::Q4_K: quantizeBlockQ4_K(x, static_cast<BlockQ4_K*>(dst) + i); break;
      default: quantizeBlockQ8_K(x, static_cast<BlockQ8_K*>(dst) + i); break;
    }
  }
}

}  // namespace lwb
