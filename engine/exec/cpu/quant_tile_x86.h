// The x86 prefill tiles of the other GGUF types (Q4_0, Q4_1, Q5_0, Q5_1 against Q8_0;
// Q5_K, Q6_K against Q8_K), included after quant_dot_x86_more.h. Each computes
// kTR × kTC outputs; every output is its dot's exact bits: the same int32 lanes per block
// (integers are exact, however they are formed) and the same float expressions in the
// same order. The tile only unpacks each weight block once for kTR rows and loads each
// activation block once for kTC columns. Also the legacy types' decode rows kernels
// (rowsLegacy), Q4_0's dot, tile and rows kernel (one integer per block), and the table
// of every member for this ISA.

// Q5_0 (dotLegacySigned).
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

// Decode of the legacy types with 8 lanes a block (Q4_1, Q5_0, Q5_1; Q4_0's rowsQ4_0 is
// below): 2 · kP consecutive weight rows against one activation row,
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
// a block. Into L1 alone, a Q4_0 decode (8 lanes a block then) streamed its weights at
// 77-83 % of a 2-thread streaming read; with the further rows into L2 too, 84-86 %
// (bench_gguf; the machine is in docs/benchmarks.md). Without either, half as fast. A
// prefetch never faults.
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

// Q4_0 as one integer per block: y = fma(d_w · d_x, Σ (q − 8) · x, y) over the blocks in
// order, one float chain per output (the other legacy types' dots keep 8 lanes a block,
// whose 8 int → float conversions and FMAs per block and output bound their prefill).
// The block's integer is exact however it is formed, so the dot, the tiles and the rows
// kernels below give the same bits on every x86 ISA. A tile puts one weight column in
// each 32-bit lane: the column's quant bytes are transposed once per block (4-byte
// groups: lane c of W[k] holds bytes 4k..4k+3 of column c's elements), and each activation
// row meets them through its 4-byte groups broadcast, 8 multiply-adds that leave each
// lane the whole block's integer, no horizontal sum. The rows of a tile share the
// transposition; its columns share the activation's loads and its −8 · Σx.

// acc + lane i: Σ of the 4 products 4i..4i+3 of unsigned a and signed b (a <= 15 here).
inline __m256i addDotBytes(__m256i acc, __m256i a, __m256i b) {
  if constexpr (kVnni) return _mm256_dpbusd_epi32(acc, a, b);
  else return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), _mm256_set1_epi16(1)));
}

// 8 · Σ of a Q8_0 block's 32 activations xq, the offset the unsigned nibbles carry: as
// dotBytes' 8 lanes, and summed.
inline __m256i offsetLanesQ4_0(__m256i xq) { return dotBytes(_mm256_set1_epi8(8), xq); }
inline int offsetSumQ4_0(const BlockQ8_0& x) {
  return hsumInt8(offsetLanesQ4_0(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.qs))));
}

// Bytes 4k..4k+3 of an activation block, in every 32-bit lane.
inline __m256i xGroup(const BlockQ8_0& x, int k) {
  int32_t v;
  std::memcpy(&v, x.qs + 4 * k, 4);
  return _mm256_set1_epi32(v);
}

float dotQ4_0(const BlockQ4_0* w, const BlockQ8_0* x, int nb) {
  __m128 y = _mm_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRow(w, nb, b);
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
    const __m256i p = dotBytes(legacyQuants<BlockQ4_0, 4>(w[b]), xq), offset = offsetLanesQ4_0(xq);
    const float d = halfScalar(w[b].d) * halfScalar(x[b].d);
    y = _mm_fmadd_ss(_mm_set_ss(d), _mm_cvtsi32_ss(_mm_setzero_ps(), hsumInt8(_mm256_sub_epi32(p, offset))), y);
  }
  return _mm_cvtss_f32(y);
}

// 8 columns: lane c of w8[k] (k < 4) holds the low nibbles of column c's quant bytes
// 4k..4k+3 (elements 4k..4k+3), of w8[4 + k] their high nibbles (elements 16 + 4k..).
// p[j] holds column j's 16 bytes in its low 128-bit lane and column j + 4's in its high
// one; the 4 × 4 transposition of 32-bit words within each lane leaves word k of column
// c in lane c of q[k].
template <typename Cols>
inline void transposeQ4_0Ymm(const Cols& cols, int b, __m256i (&w8)[8]) {
  const auto load = [&](int c) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(cols(c, b).qs)); };
  __m256i p[4];
  for (int j = 0; j < 4; ++j) p[j] = _mm256_inserti128_si256(_mm256_castsi128_si256(load(j)), load(j + 4), 1);
  const __m256i t0 = _mm256_unpacklo_epi32(p[0], p[1]), t1 = _mm256_unpackhi_epi32(p[0], p[1]);
  const __m256i t2 = _mm256_unpacklo_epi32(p[2], p[3]), t3 = _mm256_unpackhi_epi32(p[2], p[3]);
  const __m256i q[4] = {_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2), _mm256_unpacklo_epi64(t1, t3),
                        _mm256_unpackhi_epi64(t1, t3)};
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  for (int k = 0; k < 4; ++k) {
    w8[k] = _mm256_and_si256(q[k], low4);
    w8[4 + k] = _mm256_and_si256(_mm256_srli_epi16(q[k], 4), low4);
  }
}

// Block b of a tile's column c: from its own pointer, or (a decode's rows) at a fixed
// stride from the first; given as a stride the addresses stay scalar arithmetic (given
// as 8 pointers, the compiler kept them in vectors and extracted each one).
struct ColumnPointers {
  const BlockQ4_0* const* w;
  const BlockQ4_0& operator()(int c, int b) const { return w[c][b]; }
  template <int kTC>
  void prefetch(int nb, int b) const { prefetchNextRows<kTC>(w, b, nb); }
};
struct ConsecutiveRows {
  const BlockQ4_0* w;
  size_t nb;
  const BlockQ4_0& operator()(int c, int b) const { return w[size_t(c) * nb + size_t(b)]; }
  template <int kTC>
  void prefetch(int, int b) const { prefetchNextRowGroups<kTC>(w, int(nb), b); }
};

// kTR input rows × 8 weight columns; a decode's rows fetch the next groups in the order
// they lie, a tile's columns the blocks kTC rows on.
template <int kTR, typename Cols>
inline void tileQ4_0Core(const Cols& cols, const BlockQ8_0* const* x, int nb, __m256 (&acc)[kTR], int b0 = 0) {
  for (int b = b0; b < nb; ++b) {
    cols.template prefetch<8>(nb, b);
    __m256i w8[8];
    transposeQ4_0Ymm(cols, b, w8);
    const __m256 dw = halfScales8([&](int c) { return cols(c, b).d; });
#pragma GCC unroll 4
    for (int r = 0; r < kTR; ++r) {
      __m256i lanes = _mm256_set1_epi32(-offsetSumQ4_0(x[r][b]));
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) lanes = addDotBytes(lanes, w8[k], xGroup(x[r][b], k));
      const __m256 d = _mm256_mul_ps(dw, _mm256_set1_ps(halfScalar(x[r][b].d)));
      acc[r] = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(lanes), acc[r]);
    }
  }
}

template <int kTR, int kTC>
void tileQ4_0Ymm(const BlockQ4_0* const* w, const BlockQ8_0* const* x, int nb, float* y, size_t ldy) {
  static_assert(kTC == 8, "one column a 32-bit lane");
  __m256 acc[kTR];
  for (__m256& a : acc) a = _mm256_setzero_ps();
  tileQ4_0Core<kTR>(ColumnPointers{w}, x, nb, acc);
  for (int r = 0; r < kTR; ++r) _mm256_storeu_ps(y + size_t(r) * ldy, acc[r]);
}

// Decode: 8 consecutive weight rows against one activation row.
void rowsQ4_0(const BlockQ4_0* w, const BlockQ8_0* x, int nb, float* y) {
  __m256 acc[1] = {_mm256_setzero_ps()};
  tileQ4_0Core<1>(ConsecutiveRows{w, size_t(nb)}, &x, nb, acc);
  _mm256_storeu_ps(y, acc[0]);
}

// Q8_0's prefill tile on 256-bit vectors (dotQ8_0's outputs): kTR input rows × 8 weight
// columns, lane c column c. Each (row, column) pair forms the dot's 8 lanes with the sign
// trick, and sums8 adds them into the column's lane (a transposition as Q4_0's would need
// w + 128 against x in maddubs, whose int16 pairs it overflows); the float work comes once
// per 8 outputs.
template <int kTR, int kTC>
void tileQ8_0(const BlockQ8_0* const* w, const BlockQ8_0* const* x, int nb, float* y, size_t ldy) {
  static_assert(kTC == 8, "one column a 32-bit lane");
  __m256 acc[kTR];
  for (__m256& a : acc) a = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRows<kTC>(w, b, nb);
    const __m256 dw = halfScales8([&](int c) { return w[c][b].d; });
#pragma GCC unroll 4
    for (int r = 0; r < kTR; ++r) {
      const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].qs));
      __m256i p[8];
#pragma GCC unroll 8
      for (int c = 0; c < 8; ++c) {
        const __m256i wq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[c][b].qs));
        p[c] = signedDotBytes(wq, xq);
      }
      const __m256 scale = _mm256_mul_ps(dw, _mm256_set1_ps(halfScalar(x[r][b].d)));
      acc[r] = _mm256_fmadd_ps(scale, _mm256_cvtepi32_ps(sums8(p)), acc[r]);
    }
  }
  for (int r = 0; r < kTR; ++r) _mm256_storeu_ps(y + size_t(r) * ldy, acc[r]);
}

// A rows kernel of one group of kRows, run over numRows rows (a multiple of kRows).
template <typename B, void (*kGroup)(const B*, const BlockQ8_0*, int, float*), int kRows>
void eachRowGroup(const B* w, const BlockQ8_0* x, int nb, float* y, int numRows) {
  for (int i = 0; i < numRows; i += kRows) kGroup(w + size_t(i) * size_t(nb), x, nb, y + i);
}

// Rows per call of the legacy types' decode, on every x86 ISA.
constexpr int kLegacyDecodeRows = 8;

// Q4_0's prefill tile on 256-bit vectors: 8 accumulators and 8 transposed weight
// registers of the 16; Q8_0's: 4 accumulators and 8 pairs' lanes.
constexpr QuantTileDims kTileQ4_0{4, 8}, kTileQ8_0{4, 8};

// This ISA's table, every member by name.
QuantKernels x86QuantKernels(Isa isa) {
  constexpr int R = kQuantTileRows, C = kQuantTileCols;
  QuantKernels k;
  k.isa = isa;
  k.vnni = kVnni;
  k.dotQ8_0 = &dotQ8_0, k.tileQ8_0 = &tileQ8_0<kTileQ8_0.rows, kTileQ8_0.cols>;
  k.tileDimsQ8_0 = kTileQ8_0;
  k.dotQ4_0 = &dotQ4_0, k.tileQ4_0 = &tileQ4_0Ymm<kTileQ4_0.rows, kTileQ4_0.cols>;
  k.tileDimsQ4_0 = kTileQ4_0;
  k.dotQ4_1 = &dotLegacyMin<BlockQ4_1, 4>, k.tileQ4_1 = &tileLegacyMin<BlockQ4_1, 4, R, C>;
  k.dotQ5_0 = &dotLegacySigned<BlockQ5_0, 5, 16>, k.tileQ5_0 = &tileLegacySigned<BlockQ5_0, 5, 16, R, C>;
  k.dotQ5_1 = &dotLegacyMin<BlockQ5_1, 5>, k.tileQ5_1 = &tileLegacyMin<BlockQ5_1, 5, R, C>;
  k.dotQ4_K = &dotQ4_K, k.tileQ4_K = &tileQ4_K<R, C>;
  k.dotQ5_K = &dotQ5_K, k.tileQ5_K = &tileQ5_K<R, C>;
  k.dotQ6_K = &dotQ6_K, k.tileQ6_K = &tileQ6_K<R, C>;
  constexpr int P = kLegacyDecodeRows / 2;
  constexpr int D = kLegacyDecodeRows;
  k.rowsQ4_0 = {&eachRowGroup<BlockQ4_0, &rowsQ4_0, 8>, 8};
  k.rowsQ4_1 = {&eachRowGroup<BlockQ4_1, &rowsLegacy<BlockQ4_1, 4, 0, true, P>, D>, D};
  k.rowsQ5_0 = {&eachRowGroup<BlockQ5_0, &rowsLegacy<BlockQ5_0, 5, 16, false, P>, D>, D};
  k.rowsQ5_1 = {&eachRowGroup<BlockQ5_1, &rowsLegacy<BlockQ5_1, 5, 0, true, P>, D>, D};
  k.quantizeQ8_0 = &quantizeQ8_0;
  k.quantizeQ8_K = &quantizeQ8_K;
  return k;
}
