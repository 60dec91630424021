#pragma once
// Linear layers with quantized weights (Q8_0, Q4_K from --quantization; every GGUF block
// type the kernels run: hasQuantKernels): weights kept as ggml blocks, row
// after row; the input rows quantized once per call to the matching 8-bit type (Q8_0 /
// Q8_K), then every output y[t, n] is one quantized dot product of weight row n with
// input row t (quant_kernels.h) — a fixed sequence whatever the batch or thread split.
// Prefill reuses each weight row, kept in L1, across a group of input rows.
#include <string>

#include "engine/exec/cpu/gemm.h"

namespace lwb {

// The type a K-column weight is stored in when `asked` is requested: Q4_K needs K to be
// a multiple of 256 and falls back to Q8_0 (as llama.cpp's Q4_K_M does for such rows);
// Q8_0 needs a multiple of 32. F32 means: stays unquantized.
GgmlType quantTypeFor(GgmlType asked, int K);

// Quantizes w's rows to `type` (Q8_0 or Q4_K; K a multiple of its block), the rows split
// over the pool's threads. Throws lwb::Error for other types or lengths.
PackedMatrix quantizeMatrix(ThreadPool& pool, const WeightMatrix& w, GgmlType type, WeightArena* arena = nullptr);

// Whether the quantized GEMM runs weights of `type`.
bool hasQuantKernels(GgmlType type);
std::string quantKernelTypeNames();  // "Q8_0, Q4_K, ...": for messages

// A copy of rows × cols weights already in ggml blocks (a GGUF tensor), 64-byte aligned
// (in `arena` when one is given). Throws lwb::Error when hasQuantKernels(type) is false.
PackedMatrix copyQuantizedMatrix(const void* blocks, GgmlType type, int rows, int cols, WeightArena* arena = nullptr);

// gemm() for jobs whose weights are quantized (all of them, all with the same K).
void gemmQuantized(ThreadPool& pool, Isa isa, const float* x, size_t ldx, int numRows, const std::vector<GemmJob>& jobs);

}  // namespace lwb
