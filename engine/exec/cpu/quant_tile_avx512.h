// The AVX-512 (VNNI) prefill tiles and decode rows kernels of the legacy types,
// included by quant_kernels_avx512.cpp after quant_dot_x86.h, quant_dot_x86_more.h and
// quant_tile_x86.h (it reuses hsum8, halfScalar, legacyQuants, prefetchNextRows,
// prefetchNextRowGroups and the Q4_0 helpers). Every output is its dot's exact bits.
//
// Q5_0 (tileLegacySignedZmm), Q4_1 and Q5_1 (rowsLegacyZmm) keep their dots' 8 int32
// lanes per block (integers are exact, however they are formed), the same float product
// d_w · d_x, the same fmadd per block and the same final hsum8. Two weight columns per
// zmm: lanes 0-7 are column c's 8 lanes, 8-15 column c+1's, the block's activation bytes
// broadcast to both halves; one dpbusd, one int → float, one mul and one fmadd per (row,
// column pair, block). Q8_0 and Q4_0 sum each block's integer whole (dotQ8_0, dotQ4_0):
// their tiles, at the end, hold a column per 32-bit lane and do the float work once per
// 16 outputs.

// int32 → float without vcvtdq2ps, which shares port 0 with the 512-bit dpbusd: the bits
// 0x4B400000 + p are the float 1.5 · 2^23 + p for |p| < 2^22 (a block's lane is within
// ±4 · 128 · 127; a block's whole integer within ±32 · 128 · 127), so subtracting
// 1.5 · 2^23 gives float(p) exactly. The integer add rides in each lane's starting value,
// so the conversion leaves port 0 to dpbusd.
constexpr int32_t kMagicFloatBits = 0x4B400000;
// 1.5 · 2^19 (ulp 1/16): the bits 0x49400000 + 16 · p are the float 1.5 · 2^19 + p.
constexpr int32_t kMagicFloatBits16 = 0x49400000;

// [s0 ×8 | s1 ×8] as floats: fp16 → fp32 is exact, so these are halfScalar's values.
inline __m512 pairScalesZmm(uint16_t s0, uint16_t s1) {
  const __m128i lo = _mm_set1_epi16(int16_t(s0)), hi = _mm_set1_epi16(int16_t(s1));
  return _mm512_cvtph_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1));
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

// Q5_0 (dotLegacySigned's outputs), two columns a zmm. Here the weights are the
// unsigned operand as they are stored (q = 0..31; the value is q - kOffset) and
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

// Decode of the legacy types with 8 lanes a block (Q4_1, Q5_0, Q5_1): 4 · kG consecutive
// weight rows against one activation row, each output its dot's exact bits (dotLegacySigned,
// dotLegacyMin). A single dot of these types is bound by its one FMA chain per 32
// elements (4 cycles a block: ~13 GB/s a core, half of what a 2-core decode needs); here
// each zmm lane holds one chain of one row, so 2 · kG chains run side by side, and the
// activation's work is shared by the rows.
// Layout: four rows' 16 quant bytes of block b fill a zmm, row r in bytes 16r..16r+15;
// their low nibbles (elements 0-15) meet the block's activation bytes 0-15 broadcast to
// the four 128-bit lanes, their high nibbles (16-31) bytes 16-31. So zmm lane 4r + i of
// the low product is row r's dot lane i, of the high product its lane 4 + i; the two
// accumulate apart and meet in hsum8's own order at the end.

// The scales of four blocks times dx, each product rounded once as the dot rounds
// halfScalar(w.d) · halfScalar(x.d), as [s0 ×4 | s1 ×4 | s2 ×4 | s3 ×4].
inline __m512 quadScalesZmm(uint16_t s0, uint16_t s1, uint16_t s2, uint16_t s3, __m128 dx) {
  const uint64_t packed = uint64_t(s0) | uint64_t(s1) << 16 | uint64_t(s2) << 32 | uint64_t(s3) << 48;
  const __m128 d = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi64_si128(int64_t(packed))), dx);
  return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3),
                               _mm512_castps128_ps512(d));
}

// The 16 quant bytes of four blocks, block r in the 128-bit lane r (two 256-bit pairs
// joined: cheaper than three 128-bit inserts into a zmm).
inline __m512i quadBytesZmm(const uint8_t* q0, const uint8_t* q1, const uint8_t* q2, const uint8_t* q3) {
  const auto load = [](const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
  const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(load(q0)), load(q1), 1);
  const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(load(q2)), load(q3), 1);
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

// Bits 16r + j of the result: bit kFrom + j of the four blocks' qh words (j < 16).
template <typename B, int kFrom>
inline __mmask64 quadFifthBits(const B& w0, const B& w1, const B& w2, const B& w3) {
  const auto half = [](const B& w) {
    uint32_t qh;
    std::memcpy(&qh, w.qh, 4);
    return uint64_t((qh >> kFrom) & 0xFFFFu);
  };
  return __mmask64(half(w0) | half(w1) << 16 | half(w2) << 32 | half(w3) << 48);
}

// Lane 4r of the result: hsum8 of row r's 8 lanes (lanes 4r..4r+3 of lo, then of hi).
inline __m512 quadHsum8(__m512 lo, __m512 hi) {
  const __m512 b = _mm512_add_ps(lo, hi);                                          // v_i + v_{i+4}
  const __m512 c = _mm512_add_ps(b, _mm512_permute_ps(b, _MM_SHUFFLE(3, 2, 3, 2)));  // + movehl
  return _mm512_add_ps(c, _mm512_movehdup_ps(c));                                    // c0 + c1
}

template <typename B, int kBits, int kOffset, bool kMin, int kG>
void rowsLegacyZmm(const B* w, const BlockQ8_0* x, int nb, float* y) {
  constexpr int kRows = 4 * kG;
  const __m512i low4 = _mm512_set1_epi8(0x0F), magic = _mm512_set1_epi32(kMagicFloatBits);
  const __m512 magicF = _mm512_castsi512_ps(magic);
  // 4-bit types keep the high nibbles in place (16 · q, one and-not): their lanes are 16
  // times the integers, read exactly by a magic number 16 times smaller (1.5 · 2^19, whose
  // ulp is 1/16; |16 · lane| < 2^22 still). The lanes' starts scale with them.
  constexpr int kHiScale = kBits == 4 ? 16 : 1;
  const __m512i magicHi = _mm512_set1_epi32(kBits == 4 ? kMagicFloatBits16 : kMagicFloatBits);
  const __m512 magicHiF = _mm512_castsi512_ps(magicHi);
  __m512 accLo[kG] = {}, accHi[kG] = {}, accMLo[kG] = {}, accMHi[kG] = {};
  const B* rows[kRows];
  for (int r = 0; r < kRows; ++r) rows[r] = w + size_t(r) * size_t(nb);
  for (int b = 0; b < nb; ++b) {
    prefetchNextRowGroups<kRows>(w, nb, b);
    const __m512i xLo = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].qs)));
    const __m512i xHi = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].qs + 16)));
    // Each lane's start: 1.5 · 2^23 as bits (the int → float of quant_tile_avx512.h), less
    // kOffset · Σx over its 4 bytes for the signed types.
    __m512i baseLo = magic, baseHi = magicHi;
    __m512 sumLo = {}, sumHi = {};
    if constexpr (kMin) {
      const __m512i ones = _mm512_set1_epi8(1);
      sumLo = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_dpbusd_epi32(magic, ones, xLo)), magicF);
      sumHi = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_dpbusd_epi32(magic, ones, xHi)), magicF);
    } else {
      const __m512i offset = _mm512_set1_epi8(int8_t(kOffset));
      baseLo = _mm512_sub_epi32(magic, _mm512_dpbusd_epi32(_mm512_setzero_si512(), offset, xLo));
      const __m512i offsetHi = _mm512_set1_epi8(int8_t(kHiScale * kOffset));
      baseHi = _mm512_sub_epi32(magicHi, _mm512_dpbusd_epi32(_mm512_setzero_si512(), offsetHi, xHi));
    }
    const __m128 dx = _mm_set1_ps(halfScalar(x[b].d));
#pragma GCC unroll 4
    for (int g = 0; g < kG; ++g) {
      const B &w0 = rows[4 * g][b], &w1 = rows[4 * g + 1][b], &w2 = rows[4 * g + 2][b], &w3 = rows[4 * g + 3][b];
      const __m512i q = quadBytesZmm(w0.qs, w1.qs, w2.qs, w3.qs);
      __m512i lo = _mm512_and_si512(q, low4);
      __m512i hi = kBits == 4 ? _mm512_andnot_si512(low4, q) : _mm512_and_si512(_mm512_srli_epi16(q, 4), low4);
      if constexpr (kBits == 5) {
        const __m512i bit = _mm512_set1_epi8(0x10);
        lo = _mm512_mask_add_epi8(lo, quadFifthBits<B, 0>(w0, w1, w2, w3), lo, bit);
        hi = _mm512_mask_add_epi8(hi, quadFifthBits<B, 16>(w0, w1, w2, w3), hi, bit);
      }
      const __m512 lanesLo = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_dpbusd_epi32(baseLo, lo, xLo)), magicF);
      const __m512 lanesHi = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_dpbusd_epi32(baseHi, hi, xHi)), magicHiF);
      const __m512 d = quadScalesZmm(w0.d, w1.d, w2.d, w3.d, dx);
      accLo[g] = _mm512_fmadd_ps(d, lanesLo, accLo[g]);
      accHi[g] = _mm512_fmadd_ps(d, lanesHi, accHi[g]);
      if constexpr (kMin) {
        const __m512 m = quadScalesZmm(w0.m, w1.m, w2.m, w3.m, dx);
        accMLo[g] = _mm512_fmadd_ps(m, sumLo, accMLo[g]);
        accMHi[g] = _mm512_fmadd_ps(m, sumHi, accMHi[g]);
      }
    }
  }
  for (int g = 0; g < kG; ++g) {
    alignas(64) float s[16], m[16];
    _mm512_store_ps(s, quadHsum8(accLo[g], accHi[g]));
    if constexpr (kMin) _mm512_store_ps(m, quadHsum8(accMLo[g], accMHi[g]));
    for (int r = 0; r < 4; ++r) y[4 * g + r] = kMin ? s[4 * r] + m[4 * r] : s[4 * r];
  }
}

// Q4_0's and Q8_0's prefill tile (dotQ4_0's and dotQ8_0's outputs, one integer per block;
// quant_tile_x86.h has the scheme) with 16 weight columns, one a 32-bit lane: per block,
// the kTR activation rows share the transposition of the 16 columns' quants; each row
// meets them in 8 dpbusd, its 4-byte groups broadcast, and its start (−offset · Σx), the
// int → float of the magic number and the dot's d_w · d_x and fmadd come once per 16
// outputs (bench_quant_kernels: Q4_0 54 GMAC/s with 8 lanes a block, 108 with one
// integer; Q8_0 62 → 100).

// Lane 4L + j of the 4 × 4 transposition of 32-bit words within each 128-bit lane of
// p[0..3] (p[j]'s lane L holding one column's 16 bytes) holds word k of that column in q[k].
inline void transposeWordsZmm(const __m512i (&p)[4], __m512i (&q)[4]) {
  const __m512i t0 = _mm512_unpacklo_epi32(p[0], p[1]), t1 = _mm512_unpackhi_epi32(p[0], p[1]);
  const __m512i t2 = _mm512_unpacklo_epi32(p[2], p[3]), t3 = _mm512_unpackhi_epi32(p[2], p[3]);
  q[0] = _mm512_unpacklo_epi64(t0, t2), q[1] = _mm512_unpackhi_epi64(t0, t2);
  q[2] = _mm512_unpacklo_epi64(t1, t3), q[3] = _mm512_unpackhi_epi64(t1, t3);
}

// Two activation blocks' 32 quants, x0's in the low 256 bits.
inline __m512i pairBlockQuantsZmm(const BlockQ8_0& x0, const BlockQ8_0& x1) {
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x0.qs));
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x1.qs)), 1);
}

// kOffset · Σx of two activation rows' blocks, each summed within its 256-bit half (x0
// low, x1 high).
template <int kOffset>
inline __m512i offsetSumsZmm(const BlockQ8_0& x0, const BlockQ8_0& x1) {
  const __m512i xs = pairBlockQuantsZmm(x0, x1);
  __m512i s = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(int8_t(uint8_t(kOffset))), xs);
  s = _mm512_add_epi32(s, _mm512_shuffle_epi32(s, _MM_PERM_BADC));
  s = _mm512_add_epi32(s, _mm512_shuffle_epi32(s, _MM_PERM_CDAB));
  return _mm512_add_epi32(s, _mm512_shuffle_i32x4(s, s, _MM_SHUFFLE(2, 3, 0, 1)));
}

// Q8_0's tile (dotQ8_0's outputs) is the same with its 32 bytes transposed as two halves
// and offset to unsigned (w + 128, so each row starts from −128 · Σx): dpbusd has no
// int16 stage to overflow.
template <typename B, int kTR, int kTC>
void tileBlockIntZmm(const B* const* w, const BlockQ8_0* const* x, int nb, float* y, size_t ldy) {
  static_assert(kTC == 16 && kTR % 2 == 0, "one column a 32-bit lane; activation rows in pairs");
  constexpr bool kQ8 = std::is_same_v<B, BlockQ8_0>;
  constexpr int kOffset = kQ8 ? 128 : 8;
  const __m512i low4 = _mm512_set1_epi8(0x0F), magic = _mm512_set1_epi32(kMagicFloatBits);
  const __m512 magicF = _mm512_castsi512_ps(magic);
  __m512 acc[kTR];
  for (__m512& a : acc) a = _mm512_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRows<kTC>(w, b, nb);
    // Columns j, j + 4, j + 8, j + 12: 16 bytes each from byte `at` of their block b.
    const auto quad = [&](int j, size_t at) {
      const auto p = [&](int c) { return reinterpret_cast<const uint8_t*>(&w[c][b]) + at; };
      return quadBytesZmm(p(j), p(j + 4), p(j + 8), p(j + 12));
    };
    constexpr size_t kQs = offsetof(B, qs);
    __m512i q[4], w16[8];
    transposeWordsZmm({quad(0, kQs), quad(1, kQs), quad(2, kQs), quad(3, kQs)}, q);
    if constexpr (kQ8) {
      __m512i q2[4];
      transposeWordsZmm({quad(0, kQs + 16), quad(1, kQs + 16), quad(2, kQs + 16), quad(3, kQs + 16)}, q2);
      const __m512i bias = _mm512_set1_epi8(int8_t(0x80));
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) w16[k] = _mm512_xor_si512(q[k], bias), w16[4 + k] = _mm512_xor_si512(q2[k], bias);
    } else {
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        w16[k] = _mm512_and_si512(q[k], low4);
        w16[4 + k] = _mm512_and_si512(_mm512_srli_epi16(q[k], 4), low4);
      }
    }
    // The scales: each column's first 4 bytes (d, two quant bytes) transposed the same way
    // and truncated to their low halves (16-bit stores read back as one vector would
    // stall on store forwarding).
    __m512i starts[4];
    transposeWordsZmm({quad(0, 0), quad(1, 0), quad(2, 0), quad(3, 0)}, starts);
    const __m512 dw = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(starts[0]));
    // Each row's start, 1.5 · 2^23 − kOffset · Σx as bits, read back broadcast.
    alignas(64) int32_t start[kTR * 8];
#pragma GCC unroll 8
    for (int r = 0; r < kTR; r += 2)
      _mm512_store_si512(start + 8 * r, _mm512_sub_epi32(magic, offsetSumsZmm<kOffset>(x[r][b], x[r + 1][b])));
#pragma GCC unroll 16
    for (int r = 0; r < kTR; ++r) {
      // Two chains of 4 dpbusd, the start added last.
      __m512i lanes[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) {
        int32_t g;
        std::memcpy(&g, x[r][b].qs + 4 * k, 4);
        lanes[k / 4] = _mm512_dpbusd_epi32(lanes[k / 4], w16[k], _mm512_set1_epi32(g));
      }
      const __m512i bits = _mm512_add_epi32(_mm512_add_epi32(lanes[0], lanes[1]), _mm512_set1_epi32(start[8 * r]));
      const __m512 lanesF = _mm512_sub_ps(_mm512_castsi512_ps(bits), magicF);
      acc[r] = _mm512_fmadd_ps(_mm512_mul_ps(dw, _mm512_set1_ps(halfScalar(x[r][b].d))), lanesF, acc[r]);
    }
  }
  for (int r = 0; r < kTR; ++r) _mm512_storeu_ps(y + size_t(r) * ldy, acc[r]);
}

// Word k of each 128-bit lane, in all four of its words.
template <int k>
inline __m512i wordOfEachLane(__m512i v) {
  return _mm512_shuffle_epi32(v, _MM_PERM_ENUM(k * 0x55));
}

// Decode: groups of 8 consecutive weight rows against one activation row, two blocks at
// a time: zmm lane r holds row r's block b, lane 8 + r its block b + 1 (8 rows, not 16 a
// register: read from memory, 16 rows at a time streamed 10-25 % slower). The
// transposition is the tile's; each 4-byte group of the two activation blocks is spread
// to its half, and the two blocks' products meet each row's chain in block order, low
// half first. The activation's share that does not depend on the rows (the starts
// 1.5 · 2^23 − 8 · Σx and the scales, per pair of blocks) is prepared once per call for
// all its groups. An odd last block runs the 256-bit kernel (VNNI too: the same bits).
struct Q4_0PairShare {  // stored unaligned: a vector of zmm types need not be 64-byte aligned
  int32_t start[16];
  float dx[16];
};

void rowsQ4_0Zmm(const BlockQ4_0* w, const BlockQ8_0* x, int nb, float* y, int numRows) {
  const size_t row = size_t(nb) * sizeof(BlockQ4_0), row3 = 3 * row;
  const __m512i low4 = _mm512_set1_epi8(0x0F), magic = _mm512_set1_epi32(kMagicFloatBits);
  const __m512 magicF = _mm512_castsi512_ps(magic);
  const int pairs = nb / 2;
  thread_local std::vector<Q4_0PairShare> share;
  if (share.size() < size_t(pairs)) share.resize(size_t(pairs));
  for (int p = 0; p < pairs; ++p) {
    _mm512_storeu_si512(share[size_t(p)].start, _mm512_sub_epi32(magic, offsetSumsZmm<8>(x[2 * p], x[2 * p + 1])));
    _mm512_storeu_ps(share[size_t(p)].dx, pairScalesZmm(x[2 * p].d, x[2 * p + 1].d));
  }
  for (int group = 0; group < numRows; group += 8) {
    const BlockQ4_0* wg = w + size_t(group) * size_t(nb);
    // Rows j and j + 4 of blocks b and b + 1, from the pointers to rows 0 and 4 at block b.
    const uint8_t *g0 = reinterpret_cast<const uint8_t*>(wg), *g4 = g0 + 4 * row;
    const auto quad = [&](int j, size_t at) {
      const size_t skip = at + (j == 3 ? row3 : size_t(j) * row);
      return quadBytesZmm(g0 + skip, g4 + skip, g0 + skip + sizeof(BlockQ4_0), g4 + skip + sizeof(BlockQ4_0));
    };
    __m256 acc = _mm256_setzero_ps();
    for (int p = 0; p < pairs; ++p) {
      const int b = 2 * p;
      prefetchNextRowGroups<8>(wg, nb, b);
      prefetchNextRowGroups<8>(wg, nb, b + 1);
      constexpr size_t kQs = offsetof(BlockQ4_0, qs);
      __m512i q[4];
      transposeWordsZmm({quad(0, kQs), quad(1, kQs), quad(2, kQs), quad(3, kQs)}, q);
      // The 16 scales packed in general registers (the vector pipes are this loop's limit).
      const auto half = [&](int r, int blk) {
        const size_t skip = (r % 4 == 3 ? row3 : size_t(r % 4) * row) + size_t(blk) * sizeof(BlockQ4_0);
        uint16_t h;
        std::memcpy(&h, (r < 4 ? g0 : g4) + skip, 2);
        return h;
      };
      const auto four = [&](int r, int blk) {
        return packHalves(half(r, blk), half(r + 1, blk), half(r + 2, blk), half(r + 3, blk));
      };
      const __m512 dw = _mm512_cvtph_ps(_mm256_setr_epi64x(four(0, 0), four(4, 0), four(0, 1), four(4, 1)));
      // Words 0-3 (elements 0-15) of block b in the low 128-bit lanes, of block b + 1 in
      // the high ones; words 4-7 likewise: word k is then one in-lane shuffle away.
      const __m512i xs = pairBlockQuantsZmm(x[b], x[b + 1]);
      const __m512i x03 = _mm512_shuffle_i32x4(xs, xs, _MM_SHUFFLE(2, 2, 0, 0));
      const __m512i x47 = _mm512_shuffle_i32x4(xs, xs, _MM_SHUFFLE(3, 3, 1, 1));
      // Elements 4k..4k+3 (low nibbles) on one chain, 16 + 4k.. (high) on the other.
      const auto low = [&](int k) { return _mm512_and_si512(q[k], low4); };
      const auto high = [&](int k) { return _mm512_and_si512(_mm512_srli_epi16(q[k], 4), low4); };
      __m512i lanes[2];
      lanes[0] = _mm512_dpbusd_epi32(_mm512_loadu_si512(share[size_t(p)].start), low(0), wordOfEachLane<0>(x03));
      lanes[1] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), high(0), wordOfEachLane<0>(x47));
      lanes[0] = _mm512_dpbusd_epi32(lanes[0], low(1), wordOfEachLane<1>(x03));
      lanes[1] = _mm512_dpbusd_epi32(lanes[1], high(1), wordOfEachLane<1>(x47));
      lanes[0] = _mm512_dpbusd_epi32(lanes[0], low(2), wordOfEachLane<2>(x03));
      lanes[1] = _mm512_dpbusd_epi32(lanes[1], high(2), wordOfEachLane<2>(x47));
      lanes[0] = _mm512_dpbusd_epi32(lanes[0], low(3), wordOfEachLane<3>(x03));
      lanes[1] = _mm512_dpbusd_epi32(lanes[1], high(3), wordOfEachLane<3>(x47));
      const __m512 d = _mm512_mul_ps(dw, _mm512_loadu_ps(share[size_t(p)].dx));
      const __m512 f = _mm512_sub_ps(_mm512_castsi512_ps(_mm512_add_epi32(lanes[0], lanes[1])), magicF);
      acc = _mm256_fmadd_ps(lowHalf(d), lowHalf(f), acc);
      acc = _mm256_fmadd_ps(highHalf(d), highHalf(f), acc);
      g0 += 2 * sizeof(BlockQ4_0), g4 += 2 * sizeof(BlockQ4_0);
    }
    if (nb % 2 != 0) {
      __m256 tail[1] = {acc};
      tileQ4_0Core<1>(ConsecutiveRows{wg, size_t(nb)}, &x, nb, tail, nb - 1);
      acc = tail[0];
    }
    _mm256_storeu_ps(y + group, acc);
  }
}
