#pragma once
// The Llama reading of a GGUF file (general.architecture = llama): hyper-parameters from
// the llama.* keys, and the row order of the attention weights. llama.cpp's converter
// permutes the rows of q and k within each head for its RoPE layout (HF pairs dimension
// i with i + d/2; GGUF stores them as rows 2i and 2i+1); unpermuteHeadRows undoes it so
// the same model gives the same numbers from either format. Rows move whole, so this
// works on quantized rows too.
// Not yet wired into loadModel: the tokenizer (tokenizer.ggml.*) and weight binding are
// the next step.
#include <cstddef>
#include <cstdint>

#include "engine/model/gguf.h"
#include "engine/model/model_config.h"

namespace lwb {

// Throws lwb::Error naming the file and the key, or the architecture when it is not llama.
ModelConfig ggufLlamaConfig(const GgufFile& file);

// out row h*d + s*d/2 + i = in row h*d + 2i + s, for numHeads heads of d rows of rowBytes.
void unpermuteHeadRows(const uint8_t* in, uint8_t* out, int numHeads, int headDim, size_t rowBytes);

}  // namespace lwb
