#include "engine/common/dtype.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace lwb {

size_t dtypeSize(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::F16:
    case DType::BF16: return 2;
    case DType::F8E4M3:
    case DType::F8E5M2: return 1;
  }
  return 4;
}

std::string_view dtypeName(DType t) {
  switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::F8E4M3: return "F8_E4M3";
    case DType::F8E5M2: return "F8_E5M2";
  }
  return "?";
}

namespace {

// f32 → FP8 with E exponent and M mantissa bits (dtype.h).
template <int E, int M>
uint8_t floatToFp8(float f) {
  constexpr int bias = (1 << (E - 1)) - 1, drop = 23 - M;
  constexpr uint32_t maxCode = E == 4 ? 0x7e : 0x7b;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint8_t sign = uint8_t((u >> 24) & 0x80u);
  u &= 0x7fffffffu;
  if (u > 0x7f800000u) return sign | 0x7f;
  if (u < uint32_t(127 + 1 - bias) << 23) {  // below the smallest normal: steps of 2^(1 - bias - M)
    const float steps = std::nearbyint(std::ldexp(std::fabs(f), bias - 1 + M));
    return sign | uint8_t(steps);  // 2^M steps = the smallest normal's code
  }
  u += (1u << (drop - 1)) - 1 + ((u >> drop) & 1u);
  const uint32_t code = ((u >> 23) - 127 + bias) << M | ((u >> drop) & ((1u << M) - 1));
  return sign | uint8_t(std::min(code, maxCode));
}

template <int E, int M>
float fp8ToFloat(uint8_t b) {
  constexpr int bias = (1 << (E - 1)) - 1;
  const int e = (b >> M) & ((1 << E) - 1), m = b & ((1 << M) - 1);
  float a;
  if (E == 4 && (b & 0x7f) == 0x7f) a = NAN;
  else if (E == 5 && e == 31) a = m != 0 ? NAN : INFINITY;
  else a = e == 0 ? std::ldexp(float(m), 1 - bias - M) : std::ldexp(float((1 << M) | m), e - bias - M);
  return (b & 0x80) ? -a : a;
}

template <float (*Decode)(uint8_t)>
std::array<float, 256> fp8Table() {
  std::array<float, 256> t{};
  for (int b = 0; b < 256; ++b) t[size_t(b)] = Decode(uint8_t(b));
  return t;
}
}  // namespace

uint8_t floatToFp8E4m3(float f) { return floatToFp8<4, 3>(f); }
uint8_t floatToFp8E5m2(float f) { return floatToFp8<5, 2>(f); }
float fp8E4m3ToFloat(uint8_t b) { return fp8ToFloat<4, 3>(b); }
float fp8E5m2ToFloat(uint8_t b) { return fp8ToFloat<5, 2>(b); }

const float* fp8E4m3Values() {
  static const std::array<float, 256> table = fp8Table<fp8E4m3ToFloat>();
  return table.data();
}

const float* fp8E5m2Values() {
  static const std::array<float, 256> table = fp8Table<fp8E5m2ToFloat>();
  return table.data();
}

bool parseDType(std::string_view name, DType* out) {
  if (name == "F32") *out = DType::F32;
  else if (name == "F16") *out = DType::F16;
  else if (name == "BF16") *out = DType::BF16;
  else return false;
  return true;
}

// The float's bits assembled directly (exact; no ldexp, a library call per element that
// made a norm over f16 weights slow): a normal half's exponent rebased from 15 to 127 and
// its 10 mantissa bits on top of float's 23, a subnormal's mant · 2^-24 (exact in float),
// every NaN the quiet NaN with the half's sign.
float f16ToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    const float magnitude = float(mant) * 0x1p-24f;  // zero / subnormal
    std::memcpy(&bits, &magnitude, 4);
  } else if (exp == 31) {
    bits = mant ? 0x7fc00000u : 0x7f800000u;
  } else {
    bits = (exp + 112u) << 23 | mant << 13;
  }
  bits |= sign;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  const float a = std::fabs(f);
  if (std::isnan(f)) return sign | 0x7e00u;
  if (a >= 65520.0f) return sign | 0x7c00u;                      // overflow → inf
  if (a < std::ldexp(1.0f, -14)) {                               // subnormal: round to 2^-24 steps
    return sign | uint16_t(std::nearbyint(a * std::ldexp(1.0f, 24)));
  }
  int e;
  const float m = std::frexp(a, &e);                             // a = m * 2^e, m in [0.5,1)
  uint32_t mant = uint32_t(std::nearbyint((m * 2.0f - 1.0f) * 1024.0f));
  int exp = e - 1 + 15;
  if (mant == 1024) { mant = 0; ++exp; }
  if (exp >= 31) return sign | 0x7c00u;
  return sign | uint16_t(exp << 10) | uint16_t(mant);
}

}  // namespace lwb
