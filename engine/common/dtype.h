#pragma once
// Element types of weights and activations, with scalar conversions. The fast vector
// conversions live in the executors.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace lwb {

enum class DType { F32, F16, BF16 };

size_t dtypeSize(DType t);
std::string_view dtypeName(DType t);                 // "F32", "F16", "BF16" (safetensors spelling)
bool parseDType(std::string_view name, DType* out);  // false for unsupported names

inline float bf16ToFloat(uint16_t v) {
  uint32_t bits = uint32_t(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
// Round to nearest even, as PyTorch does; NaN stays NaN.
inline uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return uint16_t((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}
float f16ToFloat(uint16_t v);
uint16_t floatToF16(float f);

}  // namespace lwb
