#pragma once
// Dequantization of every supported ggml type, and the quantizers the engine needs:
// f32 → Q8_0 / Q4_K (load-time weight quantization) and f32 → Q8_0 / Q8_K (activations
// for the quantized dot products). Dequantization follows ggml's arithmetic exactly
// (same products in the same order), so a block gives the same floats as ggml's
// dequantize_row_* on the same machine.
#include <cstdint>

#include "engine/model/quant_types.h"

namespace lwb {

// IEEE half → float, exact (bit manipulation, no rounding involved).
float halfToFloat(uint16_t h);

// dst[0..n) from one row of `type`; n must be a multiple of ggmlBlockSize(type).
// Throws lwb::Error for unsupported types and lengths.
void dequantizeRow(GgmlType type, const void* src, float* dst, int64_t n);

// Whether quantizeRow supports `type` (Q8_0, Q4_0, Q4_K, Q8_K).
bool canQuantize(GgmlType type);
// dst = one row of `type` from src[0..n); n must be a multiple of the block size.
// Deterministic: the same floats give the same bytes on every machine.
void quantizeRow(GgmlType type, const float* src, void* dst, int64_t n);

// The per-block quantizers, exposed for the kernels and tests.
void quantizeBlockQ8_0(const float* x, BlockQ8_0* out);
void quantizeBlockQ8_K(const float* x, BlockQ8_K* out);
void quantizeBlockQ4_0(const float* x, BlockQ4_0* out);
void quantizeBlockQ4_K(const float* x, BlockQ4_K* out);

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K/Q5_K block's 12 scale bytes.
inline void unpackScaleMinK4(int j, const uint8_t* q, uint8_t* sc, uint8_t* m) {
  if (j < 4) {
    *sc = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *sc = uint8_t((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    *m = uint8_t((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

}  // namespace lwb
