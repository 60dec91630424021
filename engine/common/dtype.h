#pragma once
// Element types of weights and activations, with scalar conversions. The fast vector
// conversions live in the executors.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace lwb {

// F8E4M3 and F8E5M2 (OCP FP8) are KV cache element types only (kv_cache_dtype fp8*),
// never a weight's or an activation's.
enum class DType { F32, F16, BF16, F8E4M3, F8E5M2 };

size_t dtypeSize(DType t);
std::string_view dtypeName(DType t);  // "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2" (safetensors spelling)
// F32, F16 or BF16 (weights); false for other names, the FP8 ones included.
bool parseDType(std::string_view name, DType* out);

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

// OCP FP8 codes, as KV cache elements (the types name a cache's element for the kernel
// templates). E4M3 is the "fn" variant: no infinities, S.1111.111 is NaN, largest 448,
// smallest subnormal 2^-9. E5M2 is f16's upper byte: largest finite 57344, 2^-16.
struct Fp8E4m3 {
  uint8_t bits;
};
struct Fp8E5m2 {
  uint8_t bits;
};

// f32 → FP8: round to nearest, ties to even; beyond the largest finite value (infinities
// too) saturated to it, as vLLM's scaled conversion does with its default scale of 1; NaN
// stays NaN. And back, exactly.
uint8_t floatToFp8E4m3(float f);
uint8_t floatToFp8E5m2(float f);
float fp8E4m3ToFloat(uint8_t b);
float fp8E5m2ToFloat(uint8_t b);
// The 256 values of each FP8 type, indexed by code (for table lookups).
const float* fp8E4m3Values();
const float* fp8E5m2Values();

}  // namespace lwb
