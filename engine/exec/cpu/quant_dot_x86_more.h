// The x86 dot products of the other GGUF types (Q4_0, Q4_1, Q5_0, Q5_1 against Q8_0;
// Q5_K, Q6_K against Q8_K), included after quant_dot_x86.h by the AVX2 and AVX-512
// kernels. Same scheme: exact int32 lanes per block, then one fma per block in block
// order, lanes summed at the end in hsum8's fixed order.

// The 32 nibbles of a legacy block as bytes in element order (low nibbles are 0..15).
inline __m256i nibbles32(const uint8_t* qs) {
  const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  const __m128i m = _mm_set1_epi8(0x0F);
  return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(raw, 4), m), _mm_and_si128(raw, m));
}

// Bit j of the little-endian qh word as 0x10 in byte j.
inline __m256i fifthBits(const uint8_t* qh4) {
  uint32_t qh;
  std::memcpy(&qh, qh4, 4);
  const __m256i spread = _mm256_shuffle_epi8(
      _mm256_set1_epi32(int(qh)), _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                                   2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
  const __m256i bit = _mm256_set1_epi64x(int64_t(0x8040201008040201ull));
  return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit), _mm256_set1_epi8(0x10));
}

template <typename B, int kBits>
inline __m256i legacyQuants(const B& w) {  // unsigned, 0..15 or 0..31
  if constexpr (kBits == 5) return _mm256_or_si256(nibbles32(w.qs), fifthBits(w.qh));
  else return nibbles32(w.qs);
}

// Q5_0: x = d·(q − offset); the signed quants go through dotQ8_0's sign trick (Q4_0's
// dot, one integer per block, is in quant_tile_x86.h with its tiles).
template <typename B, int kBits, int kOffset>
float dotLegacySigned(const B* w, const BlockQ8_0* x, int nb) {
  __m256 acc = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRow(w, nb, b);
    const __m256i wq = _mm256_sub_epi8(legacyQuants<B, kBits>(w[b]), _mm256_set1_epi8(kOffset));
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
    const __m256i p = signedDotBytes(wq, xq);
    acc = _mm256_fmadd_ps(_mm256_set1_ps(halfScalar(w[b].d) * halfScalar(x[b].d)), _mm256_cvtepi32_ps(p), acc);
  }
  return hsum8(acc);
}

// Q4_1 / Q5_1: x = d·q + m; the offset meets the block's Σx (lanes of 4 as well).
template <typename B, int kBits>
float dotLegacyMin(const B* w, const BlockQ8_0* x, int nb) {
  const __m256i ones = _mm256_set1_epi8(1);
  __m256 acc = _mm256_setzero_ps(), accm = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRow(w, nb, b);
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
    const float dy = halfScalar(x[b].d);
    const __m256i p = dotBytes(legacyQuants<B, kBits>(w[b]), xq);
    acc = _mm256_fmadd_ps(_mm256_set1_ps(halfScalar(w[b].d) * dy), _mm256_cvtepi32_ps(p), acc);
    accm = _mm256_fmadd_ps(_mm256_set1_ps(halfScalar(w[b].m) * dy), _mm256_cvtepi32_ps(dotBytes(ones, xq)), accm);
  }
  return hsum8(acc) + hsum8(accm);
}

// The integer lanes of a Q5_K block: as Q4_K's, each nibble with its fifth bit.
inline __m256i blockSumQ5_K(const BlockQ5_K& w, const BlockQ8_K& x, const ScalesK4& s) {
  const __m256i low4 = _mm256_set1_epi8(0x0F), one = _mm256_set1_epi8(1);
  const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qh));
  __m256i sum[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};  // two chains, as in dotQ4_K
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs + 32 * g));
    const __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * g)), one), 4);
    const __m256i h1 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * g + 1)), one), 4);
    const __m256i y0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.qs + 64 * g));
    const __m256i y1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.qs + 64 * g + 32));
    const __m256i lo = _mm256_or_si256(_mm256_and_si256(q, low4), h0);
    const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), low4), h1);
    if constexpr (kVnni) {
      sum[g & 1] = addScaledDotPairVnni<16>(sum[g & 1], lo, y0, hi, y1, scalePairK4(s, 2 * g));
    } else {
      sum[g & 1] = addScaledDot(addScaledDot(sum[g & 1], lo, y0, scaleK4(s, 2 * g)), hi, y1, scaleK4(s, 2 * g + 1));
    }
  }
  return _mm256_add_epi32(sum[0], sum[1]);
}

float dotQ5_K(const BlockQ5_K* w, const BlockQ8_K* x, int nb) { return dotK4<BlockQ5_K, blockSumQ5_K>(w, x, nb); }

// The 16 int8 scales of a Q6_K block as int16, each twice in a dword: lo holds sc_j for
// j = 0-3 | 8-11, hi for j = 4-7 | 12-15 (the unpacks work within 128-bit lanes).
struct ScalesQ6_K {
  __m256i lo, hi;
};
inline ScalesQ6_K unpackScalesQ6_K(const int8_t* sc) {
  const __m256i s16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sc)));
  return {_mm256_unpacklo_epi16(s16, s16), _mm256_unpackhi_epi16(s16, s16)};
}

// sc_j in every int16 lane of the low 128 bits, sc_{j+1} in the high ones (j even; a
// constant once the loops are unrolled).
inline __m256i scalePairQ6_K(const ScalesQ6_K& s, int j) {
  const int within = j % 8, d = within % 4 + 4 * (j / 8);
  return _mm256_permutevar8x32_epi32(within < 4 ? s.lo : s.hi, _mm256_setr_epi32(d, d, d, d, d + 1, d + 1, d + 1, d + 1));
}

// Σ_j sc_j · bsums_j over the 16 sub-blocks (Q6_K's offset partner), exact.
inline int offsetSumQ6_K(const int8_t* sc, const BlockQ8_K& x) {
  const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sc)));
  const __m256i prod = _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.bsums)), sc16);
  const __m128i h = _mm_add_epi32(_mm256_castsi256_si128(prod), _mm256_extracti128_si256(prod, 1));
  const __m128i h2 = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
  return _mm_cvtsi128_si32(_mm_add_epi32(h2, _mm_shuffle_epi32(h2, 0xb1)));
}

float dotQ6_K(const BlockQ6_K* w, const BlockQ8_K* x, int nb) {
  const __m256i low4 = _mm256_set1_epi8(0x0F), low2 = _mm256_set1_epi8(0x03);
  __m256 acc = _mm256_setzero_ps();
  float offsets = 0.0f;
  for (int b = 0; b < nb; ++b) {
    const ScalesQ6_K sc = unpackScalesQ6_K(w[b].scales);
    __m256i sum0 = _mm256_setzero_si256(), sum1 = _mm256_setzero_si256();  // two chains, as in dotQ4_K
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half) {
      const __m256i ql0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[b].ql + 64 * half));
      const __m256i ql1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[b].ql + 64 * half + 32));
      const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[b].qh + 32 * half));
      const __m256i q[4] = {
          _mm256_or_si256(_mm256_and_si256(ql0, low4), _mm256_slli_epi16(_mm256_and_si256(qh, low2), 4)),
          _mm256_or_si256(_mm256_and_si256(ql1, low4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), low2), 4)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                          _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), low2), 4)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4),
                          _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), low2), 4))};
#pragma GCC unroll 2
      for (int k = 0; k < 4; k += 2) {
        const int j = 8 * half + 2 * k;  // sub-blocks j .. j+3 of 16
        const __m256i y0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs + 16 * j));
        const __m256i y1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs + 16 * j + 32));
        sum0 = addScaledDot(sum0, q[k], y0, scalePairQ6_K(sc, j));
        sum1 = addScaledDot(sum1, q[k + 1], y1, scalePairQ6_K(sc, j + 2));
      }
    }
    const __m256i sumi = _mm256_add_epi32(sum0, sum1);
    const int offset = offsetSumQ6_K(w[b].scales, x[b]);
    const float d = x[b].d * halfScalar(w[b].d);
    acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    offsets += d * float(32 * offset);
  }
  return hsum8(acc) - offsets;
}
