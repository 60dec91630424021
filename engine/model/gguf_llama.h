#pragma once
// The Llama-family reading of a GGUF file (general.architecture llama, qwen2 or qwen3):
// hyper-parameters from the <arch>.* keys, and the row order of the attention weights.
// llama.cpp's converter permutes the rows of q and k within each head for its RoPE
// layout in llama files only (HF pairs dimension i with i + d/2; GGUF stores them as
// rows 2i and 2i+1); unpermuteHeadRows undoes it so the same model gives the same
// numbers from either format. Rows move whole, so this works on quantized rows too.
#include <cstddef>
#include <cstdint>

#include "engine/model/gguf.h"
#include "engine/model/model_config.h"

namespace lwb {

// "llama, qwen2, qwen3": for messages.
const char* ggufSupportedArchitectures();

// Throws lwb::Error naming the file and the key, or the architecture when it is not one
// of ggufSupportedArchitectures().
ModelConfig ggufModelConfig(const GgufFile& file);

// Whether the converter permuted q/k rows (general.architecture llama).
bool ggufPermutesQk(const GgufFile& file);

// out row h*d + s*d/2 + i = in row h*d + 2i + s, for numHeads heads of d rows of rowBytes.
void unpermuteHeadRows(const uint8_t* in, uint8_t* out, int numHeads, int headDim, size_t rowBytes);

}  // namespace lwb
