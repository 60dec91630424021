#pragma once
// ggml's tensor types as GGUF numbers them, and the byte layout of each quantized block.
// A row of n elements is n / blockSize blocks stored back to back; a block holds its
// scale(s) as IEEE half floats and its quants packed as the structs below spell out
// (little-endian, no padding: these are the on-disk layouts).
#include <cstddef>
#include <cstdint>
#include <string>

namespace lwb {

enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15, BF16 = 30,
};

constexpr int kQk = 32;    // elements per block of the legacy formats
constexpr int kQkK = 256;  // elements per super-block of the K-quants

// x[i] = d * (q[i] - 8); low nibbles are elements 0..15, high nibbles 16..31.
struct BlockQ4_0 { uint16_t d; uint8_t qs[kQk / 2]; };
// x[i] = d * q[i] + m
struct BlockQ4_1 { uint16_t d, m; uint8_t qs[kQk / 2]; };
// Bit i of qh (a little-endian uint32) is bit 4 of element i; x[i] = d * (q[i] - 16).
struct BlockQ5_0 { uint16_t d; uint8_t qh[4]; uint8_t qs[kQk / 2]; };
// x[i] = d * q[i] + m
struct BlockQ5_1 { uint16_t d, m; uint8_t qh[4]; uint8_t qs[kQk / 2]; };
// x[i] = d * q[i]
struct BlockQ8_0 { uint16_t d; int8_t qs[kQk]; };
// 8 sub-blocks of 32: x = d * sc[j] * q - dmin * m[j], with 6-bit sc/m packed in 12 bytes;
// each 32-byte run of qs holds sub-block 2g in its low nibbles and 2g+1 in its high ones.
struct BlockQ4_K { uint16_t d, dmin; uint8_t scales[12]; uint8_t qs[kQkK / 2]; };
// As Q4_K plus a fifth bit: bit 2g of qh[l] for sub-block 2g, bit 2g+1 for 2g+1.
struct BlockQ5_K { uint16_t d, dmin; uint8_t scales[12]; uint8_t qh[kQkK / 8]; uint8_t qs[kQkK / 2]; };
// 16 sub-blocks of 16 with int8 scales; 6-bit quants (4 low bits in ql, 2 high in qh), offset 32.
struct BlockQ6_K { uint8_t ql[kQkK / 2]; uint8_t qh[kQkK / 4]; int8_t scales[kQkK / 16]; uint16_t d; };
// The activation side of K-quant dot products: float scale, int8 quants, sums of 16.
struct BlockQ8_K { float d; int8_t qs[kQkK]; int16_t bsums[kQkK / 16]; };

static_assert(sizeof(BlockQ4_0) == 18 && sizeof(BlockQ4_1) == 20 && sizeof(BlockQ5_0) == 22 &&
              sizeof(BlockQ5_1) == 24 && sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_K) == 144 && sizeof(BlockQ5_K) == 176 && sizeof(BlockQ6_K) == 210 &&
              sizeof(BlockQ8_K) == 292);

// Whether `raw` is a type this engine reads (F32, F16, BF16 and the quantized blocks above).
bool isSupportedGgmlType(uint32_t raw);
// "Q4_K", "F16", ...; "type 23" for numbers it does not know.
std::string ggmlTypeName(uint32_t raw);
inline std::string ggmlTypeName(GgmlType t) { return ggmlTypeName(uint32_t(t)); }
// Elements per block (1 for F32/F16/BF16) and bytes per block, for supported types.
int ggmlBlockSize(GgmlType t);
size_t ggmlBlockBytes(GgmlType t);
// Bytes of a row of n elements; n must be a multiple of the block size.
inline size_t ggmlRowBytes(GgmlType t, int64_t n) { return size_t(n / ggmlBlockSize(t)) * ggmlBlockBytes(t); }

}  // namespace lwb
