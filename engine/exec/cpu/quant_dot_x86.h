// The x86 quantized dot products, written once with 256-bit vectors and included by
// quant_kernels_avx2.cpp (maddubs/madd) and quant_kernels_avx512.cpp (VNNI dpbusd) after
// their target pragmas. Both reduce 4 adjacent byte products into each int32 lane, so
// the integers, the float sequence and the results are the same in both.
// Include inside an anonymous namespace, with kVnni defined.

// The dot and the tile must round the same scalar expressions the same way: no fusing
// a*b + c into an FMA in one of them and not in the other.
#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif

// 8 int32 lanes; lane i = Σ of products 4i..4i+3 of unsigned a (0..255) and signed b.
inline __m256i dotBytes(__m256i a, __m256i b) {
  if constexpr (kVnni) {
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), a, b);
  } else {
    const __m256i pairs = _mm256_maddubs_epi16(a, b);  // a <= 128, |b| <= 127: no int16 saturation
    return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
  }
}

// Fixed order: upper half onto lower, then 4 → 2 → 1.
inline float hsum8(__m256 v) {
  const __m128 b = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));
  return _mm_cvtss_f32(_mm_add_ss(c, _mm_movehdup_ps(c)));
}

inline float halfScalar(uint16_t h) { return _cvtsh_ss(h); }

// Block b of the weight row after this one (w + nb), into L1: a decode's dots run a task's
// rows one after another, and with the hardware prefetchers alone a Q4_K_M decode
// streamed its weights at 86-87 % of a 2-thread streaming read, with it at 90-91 % (129 →
// 137 tok/s), Q4_0 at 57 → 60 % (bench_gguf, docs/benchmarks.md has the machine; the
// legacy types' decode now runs their rows kernels, quant_tile_x86.h). Q8_0 and Q6_K, at
// 90-96 % without it, gained nothing and do without. A prefetch never
// faults, so the last row's reach past the matrix is harmless.
template <typename WB>
inline void prefetchNextRow(const WB* w, int nb, int b) {
  const char* p = reinterpret_cast<const char*>(w + nb + b);
  for (size_t off = 0; off < sizeof(WB); off += 64) _mm_prefetch(p + off, _MM_HINT_T0);
}

// The sum of the 8 int32 lanes (exact).
inline int hsumInt8(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  return _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1)));
}

// The 8 int32 sums of the 8 vectors p[0..7], in that order, in one vector: what a tile's
// 8 (row, column) pairs need once per block, in 9 shuffles and adds rather than 8
// reductions of 6 (integers: exact in any order).
inline __m256i sums8(const __m256i (&p)[8]) {
  const __m256i h0 = _mm256_hadd_epi32(p[0], p[1]), h1 = _mm256_hadd_epi32(p[2], p[3]);
  const __m256i h2 = _mm256_hadd_epi32(p[4], p[5]), h3 = _mm256_hadd_epi32(p[6], p[7]);
  const __m256i g0 = _mm256_hadd_epi32(h0, h1), g1 = _mm256_hadd_epi32(h2, h3);
  return _mm256_add_epi32(_mm256_permute2x128_si256(g0, g1, 0x20), _mm256_permute2x128_si256(g0, g1, 0x31));
}

// Four fp16 values packed into the low 64 bits, a, b, c, d in that order.
inline int64_t packHalves(uint16_t a, uint16_t b, uint16_t c, uint16_t d) {
  return int64_t(uint64_t(a) | uint64_t(b) << 16 | uint64_t(c) << 32 | uint64_t(d) << 48);
}

// The 8 fp16 scales half(0..7) as floats (exact: halfScalar's values), packed in general
// registers: 16-bit stores read back as one vector would stall on store forwarding.
template <typename Half>
inline __m256 halfScales8(Half half) {
  return _mm256_cvtph_ps(_mm_set_epi64x(packHalves(half(4), half(5), half(6), half(7)),
                                        packHalves(half(0), half(1), half(2), half(3))));
}

// y + a_i · b_i for lanes i = 0, 1, 2, 3 in that order, each a single-rounded FMA.
inline __m128 fmaLanes4(__m128 a, __m128 b, __m128 y) {
  y = _mm_fmadd_ss(a, b, y);
  y = _mm_fmadd_ss(_mm_permute_ps(a, 1), _mm_permute_ps(b, 1), y);
  y = _mm_fmadd_ss(_mm_permute_ps(a, 2), _mm_permute_ps(b, 2), y);
  return _mm_fmadd_ss(_mm_permute_ps(a, 3), _mm_permute_ps(b, 3), y);
}

// dotBytes of signed weight bytes w and activation bytes x: weights may hold -128 (files
// are untrusted); activations are within ±127, so the sign of w moves onto x and |w| (as
// unsigned, 128 included) stays exact.
inline __m256i signedDotBytes(__m256i w, __m256i x) { return dotBytes(_mm256_abs_epi8(w), _mm256_sign_epi8(x, w)); }

// Q8_0 as one integer per block (as Q4_0, quant_tile_x86.h): y = fma(d_w · d_x, Σ w · x, y)
// over the blocks in order, one float chain per output (signedDotBytes).
float dotQ8_0(const BlockQ8_0* w, const BlockQ8_0* x, int nb) {
  __m128 y = _mm_setzero_ps();
  int b = 0;
  // Eight blocks at a time: their integers summed into one vector (sums8), converted and
  // scaled together; only the FMA chain stays one block at a time (a decode streams one
  // weight row per dot, the access the hardware prefetchers follow best, so this loop
  // must keep up with a core's share of the memory: ~30 GB/s in L2, 19 one block at a time).
  for (; b + 8 <= nb; b += 8) {
    __m256i p[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      const __m256i wq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[b + k].qs));
      const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b + k].qs));
      p[k] = signedDotBytes(wq, xq);
    }
    const __m256 d = _mm256_mul_ps(halfScales8([&](int k) { return w[b + k].d; }),
                                   halfScales8([&](int k) { return x[b + k].d; }));
    const __m256 isum = _mm256_cvtepi32_ps(sums8(p));
    y = fmaLanes4(_mm256_castps256_ps128(d), _mm256_castps256_ps128(isum), y);
    y = fmaLanes4(_mm256_extractf128_ps(d, 1), _mm256_extractf128_ps(isum, 1), y);
  }
  for (; b < nb; ++b) {
    const __m256i wq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[b].qs));
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[b].qs));
    const int isum = hsumInt8(signedDotBytes(wq, xq));
    const float d = halfScalar(w[b].d) * halfScalar(x[b].d);
    y = _mm_fmadd_ss(_mm_set_ss(d), _mm_cvtsi32_ss(_mm_setzero_ps(), isum), y);
  }
  return _mm_cvtss_f32(y);
}

// The 8 six-bit scales and mins of a Q4_K/Q5_K block (same values as unpackScaleMinK4),
// unpacked in vector registers from the three 32-bit words u0-u2: bytes 0-3 and 4-7 hold
// sc/m 0-3 in their low six bits and the top two bits of sc/m 4-7; bytes 8-11 hold the
// low nibbles of those. A dot runs this once per block, where the scalar shifts and the
// moves into vectors cost a third of its instructions.
struct ScalesK4 {
  __m256i sc;  // bytes sc_0..7 then m_0..7, in both 128-bit lanes (scaleK4 picks one)
  __m256i m;   // m_j as int16 at words 2j and 2j+1 (the partners of Q8_K's bsums)
};
// q: the block's 12 scale bytes, followed by at least 4 more bytes of the block.
inline ScalesK4 unpackScalesK4(const uint8_t* q) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));  // u0 u1 u2 -
  const __m128i low = _mm_and_si128(v, _mm_set1_epi8(0x3f));                // sc 0-3, m 0-3
  const __m128i nib = _mm_srlv_epi32(_mm_shuffle_epi32(v, 0xaa), _mm_setr_epi32(0, 4, 0, 4));
  const __m128i high = _mm_or_si128(_mm_and_si128(nib, _mm_set1_epi8(0x0f)),
                                    _mm_and_si128(_mm_srli_epi32(v, 2), _mm_set1_epi8(0x30)));  // sc 4-7, m 4-7
  const __m256i all = _mm256_broadcastsi128_si256(_mm_unpacklo_epi32(low, high));  // sc 0-7, m 0-7
  const __m256i twice = _mm256_setr_epi8(8, -1, 8, -1, 9, -1, 9, -1, 10, -1, 10, -1, 11, -1, 11, -1,  //
                                         12, -1, 12, -1, 13, -1, 13, -1, 14, -1, 14, -1, 15, -1, 15, -1);
  return {all, _mm256_shuffle_epi8(all, twice)};
}

// unpackScalesK4 of two blocks at once, one in each 128-bit lane.
inline void unpackScalesK4x2(const uint8_t* q0, const uint8_t* q1, ScalesK4& s0, ScalesK4& s1) {
  const __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q0))),
                                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(q1)), 1);
  const __m256i low = _mm256_and_si256(v, _mm256_set1_epi8(0x3f));
  const __m256i nib = _mm256_srlv_epi32(_mm256_shuffle_epi32(v, 0xaa), _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4));
  const __m256i high = _mm256_or_si256(_mm256_and_si256(nib, _mm256_set1_epi8(0x0f)),
                                       _mm256_and_si256(_mm256_srli_epi32(v, 2), _mm256_set1_epi8(0x30)));
  const __m256i both = _mm256_unpacklo_epi32(low, high);  // block 0's sc, m | block 1's
  const __m256i twice = _mm256_setr_epi8(8, -1, 8, -1, 9, -1, 9, -1, 10, -1, 10, -1, 11, -1, 11, -1,  //
                                         12, -1, 12, -1, 13, -1, 13, -1, 14, -1, 14, -1, 15, -1, 15, -1);
  s0.sc = _mm256_permute4x64_epi64(both, 0x44);
  s1.sc = _mm256_permute4x64_epi64(both, 0xee);
  s0.m = _mm256_shuffle_epi8(s0.sc, twice);
  s1.m = _mm256_shuffle_epi8(s1.sc, twice);
}

// sc_j in every int16 lane (j is a constant once the loops are unrolled).
inline __m256i scaleK4(const ScalesK4& s, int j) {
  return _mm256_shuffle_epi8(s.sc, _mm256_set1_epi16(int16_t(0x8000 | j)));
}

// Σ_j m_j · (bsums[2j] + bsums[2j+1]): the min correction of a Q4_K block, exact, in lane 0.
inline __m128i minSumK4Vec(const ScalesK4& s, const BlockQ8_K& x) {
  const __m256i prod = _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.bsums)), s.m);
  const __m128i h = _mm_add_epi32(_mm256_castsi256_si128(prod), _mm256_extracti128_si256(prod, 1));
  const __m128i h2 = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
  return _mm_add_epi32(h2, _mm_shuffle_epi32(h2, 0xb1));
}

// acc + lane i: sc · Σ of the 4 products 4i..4i+3 of q (0..63) and int8 y, exact (the
// byte pairs cannot saturate int16); VNNI fuses the madd and the add.
inline __m256i addScaledDot(__m256i acc, __m256i q, __m256i y, __m256i sc) {
  const __m256i pairs = _mm256_maddubs_epi16(q, y);
  if constexpr (kVnni) return _mm256_dpwssd_epi32(acc, pairs, sc);
  else return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, sc));
}

// (sc_j, sc_j+1) as int16 pairs in every dword (j even).
inline __m256i scalePairK4(const ScalesK4& s, int j) {
  return _mm256_shuffle_epi8(s.sc, _mm256_set1_epi32(int32_t(0x80008000u | uint32_t(j + 1) << 16 | uint32_t(j))));
}

// VNNI: lane i of sub-blocks j and j+1 (unsigned a0 against y0, a1 against y1), scaled
// and added to acc, the same lane integers as two addScaledDot. dpbusd sums each lane's 4
// products (|sum| <= 4 · 31 · 127, an int16), the two sums are paired as int16 in one
// dword (a1 may hold its values times 2^(16 - kShift1): the shift drops the factor) and
// one dpwssd scales both: 3 multiplies for 64 bytes, not 4.
template <int kShift1>
inline __m256i addScaledDotPairVnni(__m256i acc, __m256i a0, __m256i y0, __m256i a1, __m256i y1, __m256i scPair) {
  const __m256i p0 = _mm256_dpbusd_epi32(_mm256_setzero_si256(), a0, y0);
  const __m256i p1 = _mm256_dpbusd_epi32(_mm256_setzero_si256(), a1, y1);
  return _mm256_dpwssd_epi32(acc, _mm256_blend_epi16(p0, _mm256_slli_epi32(p1, kShift1), 0xaa), scPair);
}

// Sub-blocks j and j+1 of a Q4_K group: the low nibbles of q against y0, the high against
// y1 (VNNI takes them unshifted, as 16 times their values).
inline __m256i addScaledDotPair(__m256i acc, __m256i q, __m256i y0, __m256i y1, const ScalesK4& s, int j) {
  if constexpr (kVnni) {
    return addScaledDotPairVnni<12>(acc, _mm256_and_si256(q, _mm256_set1_epi8(0x0f)), y0,
                                    _mm256_and_si256(q, _mm256_set1_epi8(-16)), y1, scalePairK4(s, j));
  } else {
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i lo = _mm256_and_si256(q, low4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
    return addScaledDot(addScaledDot(acc, lo, y0, scaleK4(s, j)), hi, y1, scaleK4(s, j + 1));
  }
}

// The integer lanes of a Q4_K block (one chain: the block pairs give the overlap).
inline __m256i blockSumQ4_K(const BlockQ4_K& w, const BlockQ8_K& x, const ScalesK4& s) {
  __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.qs + 32 * g));
    const __m256i y0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.qs + 64 * g));
    const __m256i y1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.qs + 64 * g + 32));
    sum = addScaledDotPair(sum, q, y0, y1, s, 2 * g);
  }
  return sum;
}

// x.d·d and x.d·dmin in lanes 0 and 1: the products of the scalar expressions (d and dmin
// converted together).
template <typename WB>
inline __m128 blockScalesK4(const WB& w, const BlockQ8_K& x) {
  static_assert(offsetof(WB, d) == 0 && offsetof(WB, dmin) == 2, "d, dmin lead the block");
  uint32_t ddmin;
  std::memcpy(&ddmin, &w, 4);
  return _mm_mul_ps(_mm_set1_ps(x.d), _mm_cvtph_ps(_mm_cvtsi32_si128(int(ddmin))));
}

// The float part of a Q4_K/Q5_K block in a dot, in lane 0 of `mins`: acc += x.d·d · sumi
// and mins += x.d·dmin · float(minSum).
template <typename WB>
inline void addBlockK4(const WB& w, const BlockQ8_K& x, __m256i sumi, const ScalesK4& s, __m256& acc, __m128& mins) {
  const __m128 f = blockScalesK4(w, x);
  acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(f), _mm256_cvtepi32_ps(sumi), acc);
  mins = _mm_add_ss(mins, _mm_mul_ss(_mm_movehdup_ps(f), _mm_cvtepi32_ps(minSumK4Vec(s, x))));
}

// Two blocks' float parts in block order, the min sums of both reduced together.
template <typename WB>
inline void addBlockPairK4(const WB* w, const BlockQ8_K* x, __m256i sumi0, __m256i sumi1, const ScalesK4& s0,
                           const ScalesK4& s1, __m256& acc, __m128& mins) {
  const __m128 f0 = blockScalesK4(w[0], x[0]), f1 = blockScalesK4(w[1], x[1]);
  acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(f0), _mm256_cvtepi32_ps(sumi0), acc);
  acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(f1), _mm256_cvtepi32_ps(sumi1), acc);
  const __m256i p0 = _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[0].bsums)), s0.m);
  const __m256i p1 = _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[1].bsums)), s1.m);
  const __m256i h = _mm256_hadd_epi32(p0, p1);
  const __m128i h4 = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
  const __m128 m = _mm_cvtepi32_ps(_mm_hadd_epi32(h4, h4));  // minSum of block 0, 1, 0, 1
  const __m128 t = _mm_mul_ps(_mm_shuffle_ps(f0, f1, _MM_SHUFFLE(1, 1, 1, 1)), m);  // lanes 0 and 3
  mins = _mm_add_ss(_mm_add_ss(mins, t), _mm_permute_ps(t, 3));
}

// A Q4_K/Q5_K dot: blockSum gives a block's integer lanes.
template <typename WB, __m256i (*blockSum)(const WB&, const BlockQ8_K&, const ScalesK4&)>
float dotK4(const WB* w, const BlockQ8_K* x, int nb) {
  __m256 acc = _mm256_setzero_ps();
  __m128 mins = _mm_setzero_ps();
  int b = 0;
  // Blocks in pairs where 32 vector registers hold two blocks' work (AVX2's 16 spill).
  for (; kVnni && b + 1 < nb; b += 2) {
    prefetchNextRow(w, nb, b), prefetchNextRow(w, nb, b + 1);
    ScalesK4 s0, s1;
    unpackScalesK4x2(w[b].scales, w[b + 1].scales, s0, s1);
    const __m256i sumi0 = blockSum(w[b], x[b], s0), sumi1 = blockSum(w[b + 1], x[b + 1], s1);
    addBlockPairK4(w + b, x + b, sumi0, sumi1, s0, s1, acc, mins);
  }
  for (; b < nb; ++b) {
    prefetchNextRow(w, nb, b);
    const ScalesK4 s = unpackScalesK4(w[b].scales);
    addBlockK4(w[b], x[b], blockSum(w[b], x[b], s), s, acc, mins);
  }
  return hsum8(acc) - _mm_cvtss_f32(mins);
}

float dotQ4_K(const BlockQ4_K* w, const BlockQ8_K* x, int nb) { return dotK4<BlockQ4_K, blockSumQ4_K>(w, x, nb); }

// Prefill tiles of kTR input rows × kTC weight rows (kQuantTileRows × kQuantTileCols):
// independent accumulators that hide the FMA latency. A decode runs the dots.

// A tile streams its kTC weight rows from DRAM or the L3 as kTC interleaved short streams,
// which the hardware prefetcher follows poorly; so every tile prefetches block b of the
// kTC rows that follow (the GEMM's layout: rows contiguous, nb blocks each; gemmQuantized
// runs the column groups in that order) while it reads block b of its own. A prefill of a
// few row tiles over each group gets the next group spread over them at the pace they
// compute, rather than in one burst before its tiles that competes with their own loads.
// `bench_cpu --quick --only large --runs Q8_0` measures it. A prefetch never faults,
// whatever lies there.
template <int kTC, typename B>
inline void prefetchNextRows(const B* const* w, int b, int nb) {
  for (int c = 0; c < kTC; ++c)
    for (size_t off = 0; off < sizeof(B); off += 64)
      _mm_prefetch(reinterpret_cast<const char*>(w[c] + b + size_t(kTC) * size_t(nb)) + off, _MM_HINT_T0);
}

// x[r][b].d at lane r · kTC + c of a tile's 8 (row, column) pairs.
template <int kTR, int kTC>
inline __m256 rowScales8(const BlockQ8_K* const* x, int b) {
  static_assert(kTR * kTC == 8, "one lane per (row, column) pair");
  alignas(32) float v[8];
  for (int r = 0; r < kTR; ++r)
    for (int c = 0; c < kTC; ++c) v[r * kTC + c] = x[r][b].d;
  return _mm256_load_ps(v);
}

// The min terms of block b of a Q4_K/Q5_K tile's 8 pairs, lane r · kTC + c: the dot's
// x.d · dmin · float(minSum), the same products rounded the same way (no FMA here).
template <int kTR, int kTC, typename WB>
inline __m256 minTermsK4(const ScalesK4* s, const WB* const* w, const BlockQ8_K* const* x, int b) {
  __m256i p[8];
  alignas(32) float dmin[8];
  for (int r = 0; r < kTR; ++r) {
    const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r][b].bsums));
    for (int c = 0; c < kTC; ++c) {
      p[r * kTC + c] = _mm256_madd_epi16(bsums, s[c].m);
      dmin[r * kTC + c] = halfScalar(w[c][b].dmin);
    }
  }
  return _mm256_mul_ps(_mm256_mul_ps(rowScales8<kTR, kTC>(x, b), _mm256_load_ps(dmin)), _mm256_cvtepi32_ps(sums8(p)));
}

template <int kTR, int kTC>
void tileQ4_K(const BlockQ4_K* const* w, const BlockQ8_K* const* x, int nb, float* y, size_t ldy) {
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  __m256 acc[kTR][kTC];
  __m256 mins = _mm256_setzero_ps();  // lane r · kTC + c
  for (auto& row : acc)
    for (__m256& a : row) a = _mm256_setzero_ps();
  for (int b = 0; b < nb; ++b) {
    prefetchNextRows<kTC>(w, b, nb);
    ScalesK4 s[kTC];
    for (int c = 0; c < kTC; ++c) s[c] = unpackScalesK4(w[c][b].scales);
    __m256i sumi[kTR][kTC];
    for (auto& row : sumi)
      for (__m256i& v : row) v = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) {
      __m256i lo[kTC], hi[kTC], sc0[kTC], sc1[kTC];
#pragma GCC unroll 4
      for (int c = 0; c < kTC; ++c) {
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[c][b].qs + 32 * g));
        lo[c] = _mm256_and_si256(q, low4);
        hi[c] = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
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

// Activation quantization, byte for byte as quantizeBlockQ8_0/Q8_K: the same max, the
// same d = amax / 127 and 1 / d, the same products rounded to nearest even.
inline float maxAbs(const float* x, int n) {
  const __m256 signBit = _mm256_set1_ps(-0.0f);
  __m256 m = _mm256_setzero_ps();
  for (int i = 0; i < n; i += 8) m = _mm256_max_ps(m, _mm256_andnot_ps(signBit, _mm256_loadu_ps(x + i)));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
}

// 32 floats times id → 32 int8 in order, rounded to nearest even, within ±127.
inline __m256i quantize32(const float* x, __m256 id) {
  const __m256i lo = _mm256_set1_epi32(-127), hi = _mm256_set1_epi32(127);
  __m256i q[4];
  for (int k = 0; k < 4; ++k)
    q[k] = _mm256_min_epi32(hi, _mm256_max_epi32(lo, _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 8 * k), id))));
  const __m256i packed = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
  return _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

void quantizeQ8_0(const float* x, BlockQ8_0* out, int n) {
  for (int b = 0; b < n / kQk; ++b, x += kQk) {
    const float d = maxAbs(x, kQk) / 127.0f;
    const float id = d > 0.0f ? 1.0f / d : 0.0f;
    out[b].d = floatToF16(d);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[b].qs), quantize32(x, _mm256_set1_ps(id)));
  }
}

void quantizeQ8_K(const float* x, BlockQ8_K* out, int n) {
  for (int b = 0; b < n / kQkK; ++b, x += kQkK) {
    const float d = maxAbs(x, kQkK) / 127.0f;
    const float id = d > 0.0f ? 1.0f / d : 0.0f;
    out[b].d = d;
    for (int k = 0; k < kQkK / 32; ++k) {
      const __m256i q = quantize32(x + 32 * k, _mm256_set1_ps(id));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[b].qs + 32 * k), q);
      // Sums of 16: bytes → int16 pairs (×1) → int32 quads → two halves of 16.
      const __m256i quads = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), q), _mm256_set1_epi16(1));
      alignas(32) int32_t s[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(s), quads);
      out[b].bsums[2 * k] = int16_t(s[0] + s[1] + s[2] + s[3]);
      out[b].bsums[2 * k + 1] = int16_t(s[4] + s[5] + s[6] + s[7]);
    }
  }
}
