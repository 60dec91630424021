// quantizeRowForTest (gguf_export.h): round-to-nearest quantizers for the types the
// engine reads but never writes, from the block layouts in quant_types.h.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/gguf_export.h"
#include "engine/common/dtype.h"
#include "engine/model/quant.h"

namespace lwb::test {

namespace {

int roundClamp(float v, int lo, int hi) { return std::clamp(int(std::lround(v)), lo, hi); }

// Q4_1 / Q5_1: x ≈ d·q + m with q in [0, 2^bits − 1].
template <typename B, int kBits>
void quantizeWithMin(const float* x, B* out) {
  const float mn = *std::min_element(x, x + kQk), mx = *std::max_element(x, x + kQk);
  const int top = (1 << kBits) - 1;
  const float d = (mx - mn) / float(top), id = d > 0 ? 1.0f / d : 0.0f;
  out->d = floatToF16(d);
  out->m = floatToF16(mn);
  uint32_t qh = 0;
  for (int j = 0; j < kQk / 2; ++j) {
    const int a = roundClamp((x[j] - mn) * id, 0, top), b = roundClamp((x[j + 16] - mn) * id, 0, top);
    out->qs[j] = uint8_t((a & 0xF) | (b & 0xF) << 4);
    qh |= uint32_t(a >> 4 & 1) << j | uint32_t(b >> 4 & 1) << (j + 16);
  }
  if constexpr (kBits == 5) std::memcpy(out->qh, &qh, 4);
}

// Q5_0: x ≈ d·(q − 16), q in [0, 31].
void quantizeQ5_0(const float* x, BlockQ5_0* out) {
  float amax = 0;
  for (int j = 0; j < kQk; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 15.0f, id = d > 0 ? 1.0f / d : 0.0f;
  out->d = floatToF16(d);
  uint32_t qh = 0;
  for (int j = 0; j < kQk / 2; ++j) {
    const int a = roundClamp(x[j] * id + 16, 0, 31), b = roundClamp(x[j + 16] * id + 16, 0, 31);
    out->qs[j] = uint8_t((a & 0xF) | (b & 0xF) << 4);
    qh |= uint32_t(a >> 4 & 1) << j | uint32_t(b >> 4 & 1) << (j + 16);
  }
  std::memcpy(out->qh, &qh, 4);
}

// The inverse of unpackScaleMinK4 for 8 six-bit scales and mins.
void packScalesK4(const uint8_t* sc, const uint8_t* m, uint8_t* q) {
  std::memset(q, 0, 12);
  for (int j = 0; j < 4; ++j) q[j] = sc[j], q[j + 4] = m[j];
  for (int j = 4; j < 8; ++j) {
    q[j + 4] = uint8_t((sc[j] & 0xF) | (m[j] & 0xF) << 4);
    q[j - 4] |= uint8_t((sc[j] >> 4) << 6);
    q[j] |= uint8_t((m[j] >> 4) << 6);
  }
}

// Q5_K: per sub-block of 32, x ≈ d·sc·q − dmin·m with q in [0, 31].
void quantizeQ5_K(const float* x, BlockQ5_K* out) {
  float scale[8], minv[8];
  for (int j = 0; j < 8; ++j) {
    const float mn = std::min(0.0f, *std::min_element(x + 32 * j, x + 32 * j + 32));
    const float mx = *std::max_element(x + 32 * j, x + 32 * j + 32);
    scale[j] = (mx - mn) / 31.0f;
    minv[j] = -mn;
  }
  const float d = *std::max_element(scale, scale + 8) / 63.0f, dmin = *std::max_element(minv, minv + 8) / 63.0f;
  uint8_t sc[8], m[8];
  for (int j = 0; j < 8; ++j) {
    sc[j] = uint8_t(d > 0 ? roundClamp(scale[j] / d, 1, 63) : 0);
    m[j] = uint8_t(dmin > 0 ? roundClamp(minv[j] / dmin, 0, 63) : 0);
  }
  out->d = floatToF16(d);
  out->dmin = floatToF16(dmin);
  packScalesK4(sc, m, out->scales);
  std::memset(out->qh, 0, sizeof out->qh);
  std::memset(out->qs, 0, sizeof out->qs);
  const float dq = halfToFloat(out->d), dmq = halfToFloat(out->dmin);
  for (int j = 0; j < 8; ++j)
    for (int l = 0; l < 32; ++l) {
      const float step = dq * float(sc[j]);
      const int q = step > 0 ? roundClamp((x[32 * j + l] + dmq * float(m[j])) / step, 0, 31) : 0;
      out->qs[32 * (j / 2) + l] |= uint8_t((q & 0xF) << (4 * (j % 2)));
      out->qh[l] |= uint8_t((q >> 4 & 1) << j);
    }
}

// Q6_K: per sub-block of 16, x ≈ d·sc·(q − 32) with int8 sc and q in [0, 63].
void quantizeQ6_K(const float* x, BlockQ6_K* out) {
  float scale[16];
  for (int j = 0; j < 16; ++j) {
    float amax = 0;
    for (int l = 0; l < 16; ++l) amax = std::max(amax, std::fabs(x[16 * j + l]));
    scale[j] = amax / 31.0f;
  }
  const float d = *std::max_element(scale, scale + 16) / 127.0f;
  out->d = floatToF16(d);
  const float dq = halfToFloat(out->d);
  std::memset(out->ql, 0, sizeof out->ql);
  std::memset(out->qh, 0, sizeof out->qh);
  for (int j = 0; j < 16; ++j) out->scales[j] = int8_t(d > 0 ? roundClamp(scale[j] / d, 0, 127) : 0);
  for (int e = 0; e < kQkK; ++e) {
    const float step = dq * float(out->scales[e / 16]);
    const int q = step > 0 ? roundClamp(x[e] / step + 32, 0, 63) : 32;
    const int half = e / 128, r = e % 128, l = r % 32, part = r / 32;  // part 0..3: q1..q4
    uint8_t& ql = out->ql[64 * half + l + (part % 2) * 32];
    ql |= uint8_t((q & 0xF) << (part / 2 * 4));
    out->qh[32 * half + l] |= uint8_t((q >> 4 & 3) << (2 * part));
  }
}

template <typename B, typename F>
void blocks(const float* x, int n, int blockSize, std::vector<uint8_t>& out, F quantizeBlock) {
  B* b = reinterpret_cast<B*>(out.data());
  for (int i = 0; i < n / blockSize; ++i) quantizeBlock(x + i * blockSize, b + i);
}

}  // namespace

std::vector<uint8_t> quantizeRowForTest(GgmlType type, const float* x, int n) {
  std::vector<uint8_t> out(ggmlRowBytes(type, n));
  uint16_t* h = reinterpret_cast<uint16_t*>(out.data());
  switch (type) {
    case GgmlType::F32: std::memcpy(out.data(), x, size_t(n) * 4); break;
    case GgmlType::F16: for (int i = 0; i < n; ++i) h[i] = floatToF16(x[i]); break;
    case GgmlType::BF16: for (int i = 0; i < n; ++i) h[i] = floatToBf16(x[i]); break;
    case GgmlType::Q4_1: blocks<BlockQ4_1>(x, n, kQk, out, quantizeWithMin<BlockQ4_1, 4>); break;
    case GgmlType::Q5_1: blocks<BlockQ5_1>(x, n, kQk, out, quantizeWithMin<BlockQ5_1, 5>); break;
    case GgmlType::Q5_0: blocks<BlockQ5_0>(x, n, kQk, out, quantizeQ5_0); break;
    case GgmlType::Q5_K: blocks<BlockQ5_K>(x, n, kQkK, out, quantizeQ5_K); break;
    case GgmlType::Q6_K: blocks<BlockQ6_K>(x, n, kQkK, out, quantizeQ6_K); break;
    default: quantizeRow(type, x, out.data(), n); break;  // Q8_0, Q4_0, Q4_K
  }
  return out;
}

}  // namespace lwb::test
