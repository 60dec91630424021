#pragma once
// Row-wise pieces of the Llama block: embedding lookup, RMSNorm and rotate_half RoPE.
// Each works on one row at a time with a fixed operation order, so a row's result never
// depends on the other rows of the batch.
#include <cstddef>
#include <vector>

#include "engine/common/dtype.h"

namespace lwb {

// A 1-D weight (norm scale) or a row of a 2-D one, in its file dtype.
struct WeightVector {
  const void* data = nullptr;
  DType dtype = DType::F32;
  int size = 0;
};

float weightValue(const void* data, DType dtype, size_t i);

// out[i] = float(table[row, i]) for a [rows, n] table in its file dtype.
void embeddingRow(const void* table, DType dtype, int row, int n, float* out);

// y = x * (1 / sqrt(mean(x²) + eps)) * w over n = w.size elements (HF LlamaRMSNorm; the
// sum of squares is accumulated in double). x and y may alias.
void rmsNormRow(const float* x, const WeightVector& w, float eps, float* y);

// rmsNormRow on rows x[r] → y[r] (each may alias its x), bit for bit, but up to
// kNormGroup rows' sums accumulate side by side: a decode step's few rows cost about one.
constexpr int kNormGroup = 8;
void rmsNormRows(const float* const* x, float* const* y, int numRows, const WeightVector& w, float eps);
// The same on rows ldx / ldy floats apart.
void rmsNormRows(const float* x, size_t ldx, int numRows, const WeightVector& w, float eps, float* y, size_t ldy);

// cos/sin of angle = float(pos) * invFreq[i] for i < invFreq.size(), as HF computes
// the angle in float32; cos and sin themselves are rounded from double.
void ropeAngles(int pos, const std::vector<float>& invFreq, float* cosOut, float* sinOut);

// rotate_half RoPE in place on numHeads heads of headDim (pairs i and i + headDim/2):
// v[i] = a·cos − b·sin, v[i + d/2] = b·cos + a·sin.
void applyRope(float* v, int numHeads, int headDim, const float* cosv, const float* sinv);

}  // namespace lwb
