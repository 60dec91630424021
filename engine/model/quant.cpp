// Type table and dequantization of ggml's block formats. Each dequantizer does the
// float operations ggml's dequantize_row_* does, in the same order, so results are
// bit-identical to it (this file is built without FMA contraction: no -march flags).
#include "engine/model/quant.h"

#include <cstring>

#include "engine/common/error.h"

namespace lwb {

namespace {

struct TypeInfo {
  GgmlType type;
  const char* name;
  int blockSize;
  size_t blockBytes;
};

constexpr TypeInfo kTypes[] = {
    {GgmlType::F32, "F32", 1, 4},
    {GgmlType::F16, "F16", 1, 2},
    {GgmlType::BF16, "BF16", 1, 2},
    {GgmlType::Q4_0, "Q4_0", kQk, sizeof(BlockQ4_0)},
    {GgmlType::Q4_1, "Q4_1", kQk, sizeof(BlockQ4_1)},
    {GgmlType::Q5_0, "Q5_0", kQk, sizeof(BlockQ5_0)},
    {GgmlType::Q5_1, "Q5_1", kQk, sizeof(BlockQ5_1)},
    {GgmlType::Q8_0, "Q8_0", kQk, sizeof(BlockQ8_0)},
    {GgmlType::Q4_K, "Q4_K", kQkK, sizeof(BlockQ4_K)},
    {GgmlType::Q5_K, "Q5_K", kQkK, sizeof(BlockQ5_K)},
    {GgmlType::Q6_K, "Q6_K", kQkK, sizeof(BlockQ6_K)},
    {GgmlType::Q8_K, "Q8_K", kQkK, sizeof(BlockQ8_K)},
};

// Names of ggml types we know of but do not compute with, for error messages.
const char* otherTypeName(uint32_t raw) {
  switch (raw) {
    case 9: return "Q8_1";
    case 10: return "Q2_K";
    case 11: return "Q3_K";
    case 16: return "IQ2_XXS";
    case 17: return "IQ2_XS";
    case 18: return "IQ3_XXS";
    case 19: return "IQ1_S";
    case 20: return "IQ4_NL";
    case 21: return "IQ3_S";
    case 22: return "IQ2_S";
    case 23: return "IQ4_XS";
    case 24: return "I8";
    case 25: return "I16";
    case 26: return "I32";
    case 27: return "I64";
    case 28: return "F64";
    case 29: return "IQ1_M";
    case 34: return "TQ1_0";
    case 35: return "TQ2_0";
    case 39: return "MXFP4";
  }
  return nullptr;
}

const TypeInfo* findType(uint32_t raw) {
  for (const TypeInfo& t : kTypes)
    if (uint32_t(t.type) == raw) return &t;
  return nullptr;
}

const TypeInfo& requireType(GgmlType t) {
  const TypeInfo* info = findType(uint32_t(t));
  check(info != nullptr, [&] { return "unsupported ggml type " + ggmlTypeName(t); });  // per GEMM call
  return *info;
}

void dequantQ4_0(const BlockQ4_0& b, float* y) {
  const float d = halfToFloat(b.d);
  for (int j = 0; j < kQk / 2; ++j) {
    y[j] = float((b.qs[j] & 0xF) - 8) * d;
    y[j + kQk / 2] = float((b.qs[j] >> 4) - 8) * d;
  }
}

void dequantQ4_1(const BlockQ4_1& b, float* y) {
  const float d = halfToFloat(b.d), m = halfToFloat(b.m);
  for (int j = 0; j < kQk / 2; ++j) {
    y[j] = float(b.qs[j] & 0xF) * d + m;
    y[j + kQk / 2] = float(b.qs[j] >> 4) * d + m;
  }
}

// The 5-bit quants of a Q5_0/Q5_1 block, unsigned (0..31).
void unpackQ5(const uint8_t qh4[4], const uint8_t* qs, int* q) {
  uint32_t qh;
  std::memcpy(&qh, qh4, 4);
  for (int j = 0; j < kQk / 2; ++j) {
    q[j] = (qs[j] & 0xF) | int(((qh >> j) << 4) & 0x10);
    q[j + kQk / 2] = (qs[j] >> 4) | int((qh >> (j + 12)) & 0x10);
  }
}

void dequantQ5_0(const BlockQ5_0& b, float* y) {
  const float d = halfToFloat(b.d);
  int q[kQk];
  unpackQ5(b.qh, b.qs, q);
  for (int j = 0; j < kQk; ++j) y[j] = float(q[j] - 16) * d;
}

void dequantQ5_1(const BlockQ5_1& b, float* y) {
  const float d = halfToFloat(b.d), m = halfToFloat(b.m);
  int q[kQk];
  unpackQ5(b.qh, b.qs, q);
  for (int j = 0; j < kQk; ++j) y[j] = float(q[j]) * d + m;
}

void dequantQ8_0(const BlockQ8_0& b, float* y) {
  const float d = halfToFloat(b.d);
  for (int j = 0; j < kQk; ++j) y[j] = float(b.qs[j]) * d;
}

// Q4_K and Q5_K: 4 groups of 64 = two sub-blocks sharing 32 bytes of nibbles.
template <bool kFifthBit>
void dequantK45(uint16_t dBits, uint16_t dminBits, const uint8_t* scales, const uint8_t* qh, const uint8_t* qs,
                float* y) {
  const float d = halfToFloat(dBits), dmin = halfToFloat(dminBits);
  for (int g = 0; g < 4; ++g) {
    uint8_t sc, m;
    unpackScaleMinK4(2 * g, scales, &sc, &m);
    const float d1 = d * sc, m1 = dmin * m;
    unpackScaleMinK4(2 * g + 1, scales, &sc, &m);
    const float d2 = d * sc, m2 = dmin * m;
    const uint8_t* q = qs + 32 * g;
    for (int l = 0; l < 32; ++l) {
      const int hi = kFifthBit && (qh[l] >> (2 * g) & 1) ? 16 : 0;
      y[64 * g + l] = d1 * float((q[l] & 0xF) + hi) - m1;
    }
    for (int l = 0; l < 32; ++l) {
      const int hi = kFifthBit && (qh[l] >> (2 * g + 1) & 1) ? 16 : 0;
      y[64 * g + 32 + l] = d2 * float((q[l] >> 4) + hi) - m2;
    }
  }
}

void dequantQ6_K(const BlockQ6_K& b, float* y) {
  const float d = halfToFloat(b.d);
  for (int half = 0; half < 2; ++half) {
    const uint8_t* ql = b.ql + 64 * half;
    const uint8_t* qh = b.qh + 32 * half;
    const int8_t* sc = b.scales + 8 * half;
    float* out = y + 128 * half;
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = int((ql[l] & 0xF) | ((qh[l] >> 0 & 3) << 4)) - 32;
      const int q2 = int((ql[l + 32] & 0xF) | ((qh[l] >> 2 & 3) << 4)) - 32;
      const int q3 = int((ql[l] >> 4) | ((qh[l] >> 4 & 3) << 4)) - 32;
      const int q4 = int((ql[l + 32] >> 4) | ((qh[l] >> 6 & 3) << 4)) - 32;
      out[l] = d * float(sc[is]) * float(q1);
      out[l + 32] = d * float(sc[is + 2]) * float(q2);
      out[l + 64] = d * float(sc[is + 4]) * float(q3);
      out[l + 96] = d * float(sc[is + 6]) * float(q4);
    }
  }
}

void dequantQ8_K(const BlockQ8_K& b, float* y) {
  for (int j = 0; j < kQkK; ++j) y[j] = b.d * float(b.qs[j]);
}

template <typename Block, typename F>
void forEachBlock(const void* src, float* dst, int64_t numBlocks, int blockSize, F f) {
  const Block* blocks = static_cast<const Block*>(src);
  for (int64_t i = 0; i < numBlocks; ++i) f(blocks[i], dst + i * blockSize);
}

}  // namespace

bool isSupportedGgmlType(uint32_t raw) { return findType(raw) != nullptr; }

std::string ggmlTypeName(uint32_t raw) {
  if (const TypeInfo* t = findType(raw)) return t->name;
  if (const char* other = otherTypeName(raw)) return other;
  return "type " + std::to_string(raw);
}

int ggmlBlockSize(GgmlType t) { return requireType(t).blockSize; }
size_t ggmlBlockBytes(GgmlType t) { return requireType(t).blockBytes; }

float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu, bits;
  if (exp == 0x1f) bits = sign | 0x7f800000u | (mant << 13);
  else if (exp != 0) bits = sign | ((exp + 112) << 23) | (mant << 13);
  else if (mant == 0) bits = sign;
  else {  // subnormal half: a normal float after shifting the leading one into bit 10
    uint32_t e = 0;
    while (!(mant & 0x400u)) {
      mant <<= 1;
      ++e;
    }
    bits = sign | ((113 - e) << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

void dequantizeRow(GgmlType type, const void* src, float* dst, int64_t n) {
  const TypeInfo& info = requireType(type);
  check(n >= 0 && n % info.blockSize == 0, [&] {
    return std::string("dequantizeRow: ") + info.name + " rows need a multiple of " + std::to_string(info.blockSize) +
           " elements, got " + std::to_string(n);
  });
  const int64_t nb = n / info.blockSize;
  switch (type) {
    case GgmlType::F32: std::memcpy(dst, src, size_t(n) * 4); return;
    case GgmlType::F16: {
      const uint16_t* s = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = halfToFloat(s[i]);
      return;
    }
    case GgmlType::BF16: {
      const uint16_t* s = static_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) {
        const uint32_t bits = uint32_t(s[i]) << 16;
        std::memcpy(dst + i, &bits, 4);
      }
      return;
    }
    case GgmlType::Q4_0: return forEachBlock<BlockQ4_0>(src, dst, nb, kQk, dequantQ4_0);
    case GgmlType::Q4_1: return forEachBlock<BlockQ4_1>(src, dst, nb, kQk, dequantQ4_1);
    case GgmlType::Q5_0: return forEachBlock<BlockQ5_0>(src, dst, nb, kQk, dequantQ5_0);
    case GgmlType::Q5_1: return forEachBlock<BlockQ5_1>(src, dst, nb, kQk, dequantQ5_1);
    case GgmlType::Q8_0: return forEachBlock<BlockQ8_0>(src, dst, nb, kQk, dequantQ8_0);
    case GgmlType::Q4_K:
      return forEachBlock<BlockQ4_K>(src, dst, nb, kQkK, [](const BlockQ4_K& b, float* y) {
        dequantK45<false>(b.d, b.dmin, b.scales, nullptr, b.qs, y);
      });
    case GgmlType::Q5_K:
      return forEachBlock<BlockQ5_K>(src, dst, nb, kQkK, [](const BlockQ5_K& b, float* y) {
        dequantK45<true>(b.d, b.dmin, b.scales, b.qh, b.qs, y);
      });
    case GgmlType::Q6_K: return forEachBlock<BlockQ6_K>(src, dst, nb, kQkK, dequantQ6_K);
    case GgmlType::Q8_K: return forEachBlock<BlockQ8_K>(src, dst, nb, kQkK, dequantQ8_K);
    default: break;
  }
  throw Error("dequantizeRow: unsupported ggml type " + ggmlTypeName(type));
}

}  // namespace lwb
