// The AVX-512 (VNNI) prefill tiles of Q8_0, Q4_0 and Q5_0,
// included by quant_kernels_avx512.cpp after quant_dot_x86.h and quant_dot_x86_more.h (it
// reuses hsum8, halfScalar, legacyQuants and prefetchNextRows). Every output is its dot's
// exact bits (dotQ8_0, dotLegacySigned): the same 8 int32 lanes per block (integers are
// exact, however they are formed), the same float product d_w · d_x, the same fmadd per
// block and the same final hsum8.
//
// What makes it faster than tileQ8_0 on 256-bit vectors:
// - Two weight columns per zmm: lanes 0-7 are column c's 8 lanes, 8-15 column c+1's,
//   the block's activation bytes broadcast to both halves. One dpbusd, one int → float,
//   one mul and one fmadd per (row, column pair, block): 64 multiply-adds in 4 ops.
// - No per-pair sign work: dpbusd wants unsigned × signed bytes, so the activations
//   (within ±127) are offset to u = x + 128 (= x ^ 0x80, once per row and block) and
//   each lane starts from -128 · Σw over its 4 bytes (once per column and block):
//   Σ (x + 128) · w - 128 · Σ w = Σ x · w, exactly, for any weight byte (-128 included).
// Of the shapes that fit the registers, 4 × 8 and 8 × 4 do best (`bench_quant_kernels`
// measures the tiles).

// int32 → float without vcvtdq2ps, which shares port 0 with the 512-bit dpbusd: the bits
// 0x4B400000 + p are the float 1.5 · 2^23 + p for |p| < 2^22 (a block's lane is within
// ±4 · 128 · 127), so subtracting 1.5 · 2^23 gives float(p) exactly. The integer add
// rides in each lane's starting value, so the conversion leaves port 0 to dpbusd.
constexpr int32_t kMagicFloatBits = 0x4B400000;

// [s0 ×8 | s1 ×8] as floats: fp16 → fp32 is exact, so these are halfScalar's values.
inline __m512 pairScalesZmm(uint16_t s0, uint16_t s1) {
  const __m128i lo = _mm_set1_epi16(int16_t(s0)), hi = _mm_set1_epi16(int16_t(s1));
  return _mm512_cvtph_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1));
}

// The quants of two blocks side by side (unaligned: a Q8_0 block is 34 bytes).
inline __m512i pairQuantsZmm(const BlockQ8_0& a, const BlockQ8_0& b) {
  const __m256i qa = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.qs));
  const __m256i qb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs));
  return _mm512_inserti64x4(_mm512_castsi256_si512(qa), qb, 1);
}

// The low and the high 256-bit half of v.
inline __m256 lowHalf(__m512 v) { return _mm512_castps512_ps256(v); }
inline __m256 highHalf(__m512 v) { return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)); }

// Each accumulator's halves (columns 2p and 2p + 1) through the dot's own hsum8.
template <int kTR, int kP>
inline void storePairSums(const __m512 (&acc)[kTR][kP], float* y, size_t ldy) {
  for (int r = 0; r < kTR; ++r)
    for (int p = 0; p < kP; ++p) {
      y[size_t(r) * ldy + size_t(2 * p)] = hsum8(lowHalf(acc[r][p]));
      y[size_t(r) * ldy + size_t(2 * p + 1)] = hsum8(highHalf(acc[r][p]));
    }
}

// kTR input rows × kTC weight rows (kTC even): kTR · kTC / 2 zmm accumulators.
template <int kTR, int kTC>
void tileQ8_0Zmm(const BlockQ8_0* const* w, const BlockQ8_0* const* x, int nb, float* y, size_t ldy) {
  static_assert(kTC % 2 == 0, "columns go in pairs");
  constexpr int kP = kTC / 2;
  const __m512i offset = _mm512_set1_epi8(int8_t(0x80));
  const __m512i magic = _mm512_set1_epi32(kMagicFloatBits);
  __m512 acc[kTR][kP] = {};
  for (int b = 0; b < nb; ++b) {
    prefetchNextRows<kTC>(w, b, nb);
    __m512i wq[kP], base[kP];
    __m512 dw[kP];
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
      const BlockQ8_0 &w0 = w[2 * p][b], &w1 = w[2 * p + 1][b];
      wq[p] = pairQuantsZmm(w0, w1);
      base[p] = _mm512_sub_epi32(magic, _mm512_dpbusd_epi32(_mm512_setzero_si512(), offset, wq[p]));
      dw[p] = pairScalesZmm(w0.d, w1.d);
    }
#pragma GCC unroll 8
    for (int r = 0; r < kTR; ++r) {
      const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs));
      const __m512i u = _mm512_xor_si512(_mm512_broadcast_i64x4(xq), offset);
      const __m512 dx = _mm512_set1_ps(halfScalar(x[r][b].d));
#pragma GCC unroll 8
      for (int p = 0; p < kP; ++p) {
        const __m512i lanes = _mm512_dpbusd_epi32(base[p], u, wq[p]);
        const __m512 lanesF = _mm512_sub_ps(_mm512_castsi512_ps(lanes), _mm512_castsi512_ps(magic));
        acc[r][p] = _mm512_fmadd_ps(_mm512_mul_ps(dw[p], dx), lanesF, acc[r][p]);
      }
    }
  }
  storePairSums<kTR, kP>(acc, y, ldy);
}

// Q4_0 / Q5_0 (dotLegacySigned's outputs) on the same scheme. Here the weights are the
// unsigned operand as they are stored (q = 0..15 or 0..31; the value is q - kOffset) and
// the activations the signed one, so nothing is offset per pair: each row's lanes start
// from -kOffset · Σx over their 4 bytes (once per row and block), and
// Σ q · x - kOffset · Σ x = Σ (q - kOffset) · x, the dot's exact integers. For these
// types 8 × 4 does better than 4 × 8 (`bench_quant_kernels` measures it).
template <typename B, int kBits, int kOffset, int kTR, int kTC>
void tileLegacySignedZmm(const B* const* w, const BlockQ8_0* const* x, int nb, float* y, size_t ldy) {
  static_assert(kTC % 2 == 0, "columns go in pairs");
  constexpr int kP = kTC / 2;
  const __m512i offset = _mm512_set1_epi8(int8_t(kOffset));
  const __m512i magic = _mm512_set1_epi32(kMagicFloatBits);
  __m512 acc[kTR][kP] = {};
  for (int b = 0; b < nb; ++b) {
    prefetchNextRows<kTC>(w, b, nb);
    __m512i wq[kP];
    __m512 dw[kP];
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
      const B &w0 = w[2 * p][b], &w1 = w[2 * p + 1][b];
      const __m256i q0 = legacyQuants<B, kBits>(w0), q1 = legacyQuants<B, kBits>(w1);  // clang's intrinsic is a macro
      wq[p] = _mm512_inserti64x4(_mm512_castsi256_si512(q0), q1, 1);
      dw[p] = pairScalesZmm(w0.d, w1.d);
    }
#pragma GCC unroll 8
    for (int r = 0; r < kTR; ++r) {
      const __m512i xq = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs)));
      const __m512i base = _mm512_sub_epi32(magic, _mm512_dpbusd_epi32(_mm512_setzero_si512(), offset, xq));
      const __m512 dx = _mm512_set1_ps(halfScalar(x[r][b].d));
#pragma GCC unroll 8
      for (int p = 0; p < kP; ++p) {
        const __m512i lanes = _mm512_dpbusd_epi32(base, wq[p], xq);
        const __m512 lanesF = _mm512_sub_ps(_mm512_castsi512_ps(lanes), _mm512_castsi512_ps(magic));
        acc[r][p] = _mm512_fmadd_ps(_mm512_mul_ps(dw[p], dx), lanesF, acc[r][p]);
      }
    }
  }
  storePairSums<kTR, kP>(acc, y, ldy);
}
