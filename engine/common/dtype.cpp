#include "engine/common/dtype.h"

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
template <float (*Decode)(uint8_t)>
std::array<float, 256> fp8Table() {
  std::array<float, 256> t{};
  for (int b = 0; b < 256; ++b) t[size_t(b)] = Decode(uint8_t(b));
  return t;
}
}  // namespace

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

float f16ToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  float magnitude;
  if (exp == 0) magnitude = std::ldexp(float(mant), -24);                  // zero / subnormal
  else if (exp == 31) magnitude = mant ? NAN : INFINITY;
  else magnitude = std::ldexp(float(mant | 0x400u), int(exp) - 25);
  uint32_t bits;
  std::memcpy(&bits, &magnitude, 4);
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
