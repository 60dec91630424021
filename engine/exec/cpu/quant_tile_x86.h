// The x86 prefill tiles of the other GGUF types (Q4_0, Q4_1, Q5_0, Q5_1 against Q8_0;
// Q5_K, Q6_K against Q8_K), included after quant_dot_x86_more.h. Each computes
// kTR × kTC outputs; every output is its dot's exact bits: the same int32 lanes per block
// (integers are exact, however they are formed) and the same float expressions in the
// same order. The tile only unpacks each weight block once for kTR rows and loads each
// activation block once for kTC columns. Also the legacy types' decode rows kernels
// (rowsLegacy), and the table of every member for this ISA.

// Q4_0 / Q5_0 (dotLegacySigned).
template <typename B, int kBits, int kOffset, int kTR, int kTC>
void tileLegacySigned(const B* const* w, const BlockQ8_0* const* x, int nb, float* y, size_t ldy) {
  __m256 acc[kTR][kTC];
  for (auto& row : acc)
    for (__m256& a : row) a = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRows<kTC>(w, b, nb);
    __m256i wq[kTC], wabs[kTC];
    float dw[kTC];
#pragma GCC unroll 4
    for (int c = 0; c < kTC; ++c) {
      wq[c] = _mm256_sub_epi8(legacyQuants<B, kBits>(w[c][b]), _mm256_set1_epi8(kOffset));
      wabs[c] = _mm256_sign_epi8(wq[c], wq[c]);
      dw[c] = halfScalar(w[c][b].d);
    }
#pragma GCC unroll 4
    for (int r = 0; r < kTR; ++r) {
      const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs));
      const float dx = halfScalar(x[r][b].d);
#pragma GCC unroll 4
      for (int c = 0; c < kTC; ++c) {
        const __m256i p = dotBytes(wabs[c], _mm256_sign_epi8(xq, wq[c]));
        acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(dw[c] * dx), _mm256_cvtepi32_ps(p), acc[r][c]);
      }
    }
  }
  for (int r = 0; r < kTR; ++r)
    for (int c = 0; c < kTC; ++c) y[size_t(r) * ldy + size_t(c)] = hsum8(acc[r][c]);
}

// Q4_1 / Q5_1 (dotLegacyMin): a row's Σx lanes are shared by the kTC columns.
template <typename B, int kBits, int kTR, int kTC>
void tileLegacyMin(const B* const* w, const BlockQ8_0* const* x, int nb, float* y, size_t ldy) {
  const __m256i ones = _mm256_set1_epi8(1);
  __m256 acc[kTR][kTC], accm[kTR][kTC];
  for (int r = 0; r < kTR; ++r)
    for (int c = 0; c < kTC; ++c) acc[r][c] = accm[r][c] = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRows<kTC>(w, b, nb);
    __m256i wq[kTC];
    float dw[kTC], mw[kTC];
#pragma GCC unroll 4
    for (int c = 0; c < kTC; ++c) {
      wq[c] = legacyQuants<B, kBits>(w[c][b]);
      dw[c] = halfScalar(w[c][b].d);
      mw[c] = halfScalar(w[c][b].m);
    }
#pragma GCC unroll 4
    for (int r = 0; r < kTR; ++r) {
      const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs));
      const float dy = halfScalar(x[r][b].d);
      const __m256 xsum = _mm256_cvtepi32_ps(dotBytes(ones, xq));
#pragma GCC unroll 4
      for (int c = 0; c < kTC; ++c) {
        const __m256i p = dotBytes(wq[c], xq);
        acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(dw[c] * dy), _mm256_cvtepi32_ps(p), acc[r][c]);
        accm[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(mw[c] * dy), xsum, accm[r][c]);
      }
    }
  }
  for (int r = 0; r < kTR; ++r)
    for (int c = 0; c < kTC; ++c) y[size_t(r) * ldy + size_t(c)] = hsum8(acc[r][c]) + hsum8(accm[r][c]);
}

// The 8 quants of 4..5 bits of sub-blocks 2g, 2g+1 of a Q5_K block (dotQ5_K's lanes).
inline void quantsQ5_K(const BlockQ5_K& w, __m256i qh, int g, __m256i& lo, __m256i& hi) {
  const __m256i low4 = _mm256_set1_epi8(0x0F), one = _mm256_set1_epi8(1);
  const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs + 32 * g));
  const __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * g)), one), 4);
  const __m256i h1 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * g + 1)), one), 4);
  lo = _mm256_or_si256(_mm256_and_si256(q, low4), h0);
  hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), low4), h1);
}

template <int kTR, int kTC>
void tileQ5_K(const BlockQ5_K* const* w, const BlockQ8_K* const* x, int nb, float* y, size_t ldy) {
  __m256 acc[kTR][kTC];
  __m256 mins = _mm256_setzero_ps();  // lane r · kTC + c
  for (auto& row : acc)
    for (__m256& a : row) a = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRows<kTC>(w, b, nb);
    ScalesK4 s[kTC];
    __m256i qh[kTC];
    for (int c = 0; c < kTC; ++c) {
      s[c] = unpackScalesK4(w[c][b].scales);
      qh[c] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[c][b].qh));
    }
    __m256i sumi[kTR][kTC];
    for (auto& row : sumi)
      for (__m256i& v : row) v = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) {
      __m256i lo[kTC], hi[kTC], sc0[kTC], sc1[kTC];
#pragma GCC unroll 4
      for (int c = 0; c < kTC; ++c) {
        quantsQ5_K(w[c][b], qh[c], g, lo[c], hi[c]);
        sc0[c] = scaleK4(s[c], 2 * g);
        sc1[c] = scaleK4(s[c], 2 * g + 1);
      }
#pragma GCC unroll 4
      for (int r = 0; r < kTR; ++r) {
        const __m256i y0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs + 64 * g));
        const __m256i y1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs + 64 * g + 32));
#pragma GCC unroll 4
        for (int c = 0; c < kTC; ++c) {
          sumi[r][c] = addScaledDot(addScaledDot(sumi[r][c], lo[c], y0, sc0[c]), hi[c], y1, sc1[c]);
        }
      }
    }
    for (int r = 0; r < kTR; ++r)
      for (int c = 0; c < kTC; ++c)
        acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(x[r][b].d * halfScalar(w[c][b].d)), _mm256_cvtepi32_ps(sumi[r][c]), acc[r][c]);
    mins = _mm256_add_ps(mins, minTermsK4<kTR, kTC>(s, w, x, b));
  }
  alignas(32) float m[8];
  _mm256_store_ps(m, mins);
  for (int r = 0; r < kTR; ++r)
    for (int c = 0; c < kTC; ++c) y[size_t(r) * ldy + size_t(c)] = hsum8(acc[r][c]) - m[r * kTC + c];
}

// Quants k (0..3) of half h of a Q6_K block: sub-blocks j = 8h + 2k, 8h + 2k + 1 (dotQ6_K).
inline __m256i quantsQ6_K(const BlockQ6_K& w, int half, int k) {
  const __m256i low4 = _mm256_set1_epi8(0x0F), low2 = _mm256_set1_epi8(0x03);
  const __m256i ql = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.ql + 64 * half + 32 * (k & 1)));
  const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qh + 32 * half));
  const __m256i lowBits = k < 2 ? _mm256_and_si256(ql, low4) : _mm256_and_si256(_mm256_srli_epi16(ql, 4), low4);
  const __m256i highBits = _mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * k)), low2);
  return _mm256_or_si256(lowBits, _mm256_slli_epi16(highBits, 4));
}

template <int kTR, int kTC>
void tileQ6_K(const BlockQ6_K* const* w, const BlockQ8_K* const* x, int nb, float* y, size_t ldy) {
  __m256 acc[kTR][kTC];
  __m256 offsets = _mm256_setzero_ps();  // lane r · kTC + c
  for (auto& row : acc)
    for (__m256& a : row) a = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRows<kTC>(w, b, nb);
    __m256i sumi[kTR][kTC];
    for (auto& row : sumi)
      for (__m256i& v : row) v = _mm256_setzero_si256();
    ScalesQ6_K scales[kTC];
    for (int c = 0; c < kTC; ++c) scales[c] = unpackScalesQ6_K(w[c][b].scales);
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half)
#pragma GCC unroll 2
      for (int k = 0; k < 4; k += 2) {
        const int j = 8 * half + 2 * k;  // sub-blocks j .. j+3 of 16
        __m256i q0[kTC], q1[kTC], sc0[kTC], sc1[kTC];
#pragma GCC unroll 4
        for (int c = 0; c < kTC; ++c) {
          q0[c] = quantsQ6_K(w[c][b], half, k);
          q1[c] = quantsQ6_K(w[c][b], half, k + 1);
          sc0[c] = scalePairQ6_K(scales[c], j);
          sc1[c] = scalePairQ6_K(scales[c], j + 2);
        }
#pragma GCC unroll 4
        for (int r = 0; r < kTR; ++r) {
          const __m256i y0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs + 16 * j));
          const __m256i y1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs + 16 * j + 32));
#pragma GCC unroll 4
          for (int c = 0; c < kTC; ++c)
            sumi[r][c] = addScaledDot(addScaledDot(sumi[r][c], q0[c], y0, sc0[c]), q1[c], y1, sc1[c]);
        }
      }
    // The dot's d · float(32 · offsetSumQ6_K) for the 8 pairs at once, the same roundings.
    alignas(32) float dv[8];
    __m256i sc16[kTC], p[8];
    for (int c = 0; c < kTC; ++c) {
      const float dw = halfScalar(w[c][b].d);
      sc16[c] = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[c][b].scales)));
      for (int r = 0; r < kTR; ++r) {
        const float d = x[r][b].d * dw;
        acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi[r][c]), acc[r][c]);
        dv[r * kTC + c] = d;
      }
    }
    static_assert(kTR * kTC == 8, "one lane per (row, column) pair");
    for (int r = 0; r < kTR; ++r) {
      const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].bsums));
      for (int c = 0; c < kTC; ++c) p[r * kTC + c] = _mm256_madd_epi16(bsums, sc16[c]);
    }
    const __m256 offset = _mm256_cvtepi32_ps(_mm256_slli_epi32(sums8(p), 5));
    offsets = _mm256_add_ps(offsets, _mm256_mul_ps(_mm256_load_ps(dv), offset));
  }
  alignas(32) float o[8];
  _mm256_store_ps(o, offsets);
  for (int r = 0; r < kTR; ++r)
    for (int c = 0; c < kTC; ++c) y[size_t(r) * ldy + size_t(c)] = hsum8(acc[r][c]) - o[r * kTC + c];
}

// Decode of the legacy types: 2 · kP consecutive weight rows against one activation row,
// each output its dot's exact bits (dotLegacySigned, dotLegacyMin). One dot of these types
// is bound by its single FMA chain per 32 elements; here two rows share a register (row
// r's 16 quant bytes in the low 128-bit lane, row r + 1's in the high one), so 2 · kP
// chains run side by side and the activation's work is shared by the rows. A row's low
// nibbles (elements 0-15) meet the activation bytes 0-15 in both lanes, its high nibbles
// bytes 16-31: lane 4h + i of the low product is row (r + h)'s dot lane i, of the high
// product its lane 4 + i, and the two halves meet in hsum8's order at the end.
// quant_tile_avx512.h has the 512-bit version (four rows a register).

// [s0 ×4 | s1 ×4] times dx, each product rounded once as the dot's halfScalar(w.d) · dy.
inline __m256 pairScalesYmm(uint16_t s0, uint16_t s1, __m128 dx) {
  const __m128 d = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128(int(uint32_t(s0) | uint32_t(s1) << 16))), dx);
  return _mm256_permutevar8x32_ps(_mm256_castps128_ps256(d), _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
}

// Byte 16h + j of the result: bit kFrom + j of block h's qh word, as 0x10 (j < 16).
template <typename B, int kFrom>
inline __m256i pairFifthBits(const B& w0, const B& w1) {
  uint32_t h0, h1;
  std::memcpy(&h0, w0.qh, 4);
  std::memcpy(&h1, w1.qh, 4);
  const uint32_t bits = ((h0 >> kFrom) & 0xFFFFu) | ((h1 >> kFrom) & 0xFFFFu) << 16;
  return fifthBits(reinterpret_cast<const uint8_t*>(&bits));
}

// Row h's hsum8 in lane 4h: lanes 4h..4h+3 of lo, then of hi.
inline __m256 pairHsum8(__m256 lo, __m256 hi) {
  const __m256 b = _mm256_add_ps(lo, hi);
  const __m256 c = _mm256_add_ps(b, _mm256_permute_ps(b, _MM_SHUFFLE(3, 2, 3, 2)));
  return _mm256_add_ps(c, _mm256_movehdup_ps(c));
}

// The next two calls' rows follow these ones (a task's weight rows run in order): the
// next call's into L1, the one after into L2, each fetched in the order it lies, a slice
// a block. Into L1 alone, a Q4_0 decode streamed its weights at 77-83 % of a 2-thread
// streaming read; with the further rows into L2 too, 84-86 % (bench_gguf; the machine is
// in docs/benchmarks.md). Without either, half as fast. A prefetch never faults.
template <int kRows, typename B>
inline void prefetchNextRowGroups(const B* w, int nb, int b) {
  constexpr size_t kSlice = kRows * sizeof(B);
  const size_t group = size_t(kRows) * size_t(nb) * sizeof(B);
  const char* next = reinterpret_cast<const char*>(w) + group + size_t(b) * kSlice;
  for (size_t off = 0; off <= kSlice; off += 64) _mm_prefetch(next + off, _MM_HINT_T0);
  for (size_t off = 0; off <= kSlice; off += 64) _mm_prefetch(next + group + off, _MM_HINT_T1);
}

template <typename B, int kBits, int kOffset, bool kMin, int kP>
void rowsLegacy(const B* w, const BlockQ8_0* x, int nb, float* y) {
  constexpr int kRows = 2 * kP;
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  __m256 accLo[kP], accHi[kP], accMLo[kP], accMHi[kP];
  for (int p = 0; p < kP; ++p) accLo[p] = accHi[p] = accMLo[p] = accMHi[p] = _mm256_setzero_ps();
  const B* rows[kRows];
  for (int r = 0; r < kRows; ++r) rows[r] = w + size_t(r) * size_t(nb);
  for (int b = 0; b < nb; ++b) {
    prefetchNextRowGroups<kRows>(w, nb, b);
    const __m256i xLo = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].qs)));
    const __m256i xHi = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].qs + 16)));
    // Σ q · x - kOffset · Σ x = Σ (q - kOffset) · x, the signed types' exact integers; the
    // min types' Σx lanes meet the offset m.
    const __m256i offLo = kMin ? _mm256_setzero_si256() : dotBytes(_mm256_set1_epi8(int8_t(kOffset)), xLo);
    const __m256i offHi = kMin ? _mm256_setzero_si256() : dotBytes(_mm256_set1_epi8(int8_t(kOffset)), xHi);
    __m256 sumLo = _mm256_setzero_ps(), sumHi = _mm256_setzero_ps();
    if constexpr (kMin) {
      sumLo = _mm256_cvtepi32_ps(dotBytes(_mm256_set1_epi8(1), xLo));
      sumHi = _mm256_cvtepi32_ps(dotBytes(_mm256_set1_epi8(1), xHi));
    }
    const __m128 dx = _mm_set1_ps(halfScalar(x[b].d));
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
      const B &w0 = rows[2 * p][b], &w1 = rows[2 * p + 1][b];
      const __m256i q = _mm256_inserti128_si256(
          _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w0.qs))),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(w1.qs)), 1);
      __m256i lo = _mm256_and_si256(q, low4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
      if constexpr (kBits == 5) {
        lo = _mm256_or_si256(lo, pairFifthBits<B, 0>(w0, w1));
        hi = _mm256_or_si256(hi, pairFifthBits<B, 16>(w0, w1));
      }
      const __m256 lanesLo = _mm256_cvtepi32_ps(_mm256_sub_epi32(dotBytes(lo, xLo), offLo));
      const __m256 lanesHi = _mm256_cvtepi32_ps(_mm256_sub_epi32(dotBytes(hi, xHi), offHi));
      const __m256 d = pairScalesYmm(w0.d, w1.d, dx);
      accLo[p] = _mm256_fmadd_ps(d, lanesLo, accLo[p]);
      accHi[p] = _mm256_fmadd_ps(d, lanesHi, accHi[p]);
      if constexpr (kMin) {
        const __m256 m = pairScalesYmm(w0.m, w1.m, dx);
        accMLo[p] = _mm256_fmadd_ps(m, sumLo, accMLo[p]);
        accMHi[p] = _mm256_fmadd_ps(m, sumHi, accMHi[p]);
      }
    }
  }
  for (int p = 0; p < kP; ++p) {
    alignas(32) float s[8], m[8];
    _mm256_store_ps(s, pairHsum8(accLo[p], accHi[p]));
    if constexpr (kMin) _mm256_store_ps(m, pairHsum8(accMLo[p], accMHi[p]));
    for (int h = 0; h < 2; ++h) y[2 * p + h] = kMin ? s[4 * h] + m[4 * h] : s[4 * h];
  }
}

// Rows per call of the legacy types' decode, on every x86 ISA.
constexpr int kLegacyDecodeRows = 8;

// This ISA's table, every member by name.
QuantKernels x86QuantKernels(Isa isa) {
  constexpr int R = kQuantTileRows, C = kQuantTileCols;
  QuantKernels k;
  k.isa = isa;
  k.vnni = kVnni;
  k.dotQ8_0 = &dotQ8_0, k.tileQ8_0 = &tileQ8_0<R, C>;
  k.dotQ4_0 = &dotLegacySigned<BlockQ4_0, 4, 8>, k.tileQ4_0 = &tileLegacySigned<BlockQ4_0, 4, 8, R, C>;
  k.dotQ4_1 = &dotLegacyMin<BlockQ4_1, 4>, k.tileQ4_1 = &tileLegacyMin<BlockQ4_1, 4, R, C>;
  k.dotQ5_0 = &dotLegacySigned<BlockQ5_0, 5, 16>, k.tileQ5_0 = &tileLegacySigned<BlockQ5_0, 5, 16, R, C>;
  k.dotQ5_1 = &dotLegacyMin<BlockQ5_1, 5>, k.tileQ5_1 = &tileLegacyMin<BlockQ5_1, 5, R, C>;
  k.dotQ4_K = &dotQ4_K, k.tileQ4_K = &tileQ4_K<R, C>;
  k.dotQ5_K = &dotQ5_K, k.tileQ5_K = &tileQ5_K<R, C>;
  k.dotQ6_K = &dotQ6_K, k.tileQ6_K = &tileQ6_K<R, C>;
  constexpr int P = kLegacyDecodeRows / 2;
  k.decodeRows = kLegacyDecodeRows;
  k.rowsQ4_0 = &rowsLegacy<BlockQ4_0, 4, 8, false, P>;
  k.rowsQ4_1 = &rowsLegacy<BlockQ4_1, 4, 0, true, P>;
  k.rowsQ5_0 = &rowsLegacy<BlockQ5_0, 5, 16, false, P>;
  k.rowsQ5_1 = &rowsLegacy<BlockQ5_1, 5, 0, true, P>;
  k.quantizeQ8_0 = &quantizeQ8_0;
  k.quantizeQ8_K = &quantizeQ8_K;
  return k;
}
