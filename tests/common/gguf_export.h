#pragma once
// Hugging Face model folders written as GGUF files in llama.cpp's converter layout, for
// tests that cannot run the converter (CI has no llama.cpp): general.architecture and
// the <arch>.* hyper-parameters, tokenizer.ggml.* (SentencePiece "llama": pieces, scores,
// types; tokenizer.json "gpt2": tokens, types, merges, pre), the chat template, ggml
// tensor names with reversed dims, llama's q/k rows permuted for its RoPE layout, and
// Llama 3's rope_scaling as a rope_freqs tensor.
// Each 2-D weight is stored in the type `typeFor` picks; the quantizers for types the
// engine never writes (Q4_1, Q5_0, Q5_1, Q5_K, Q6_K) are plain round-to-nearest ones
// written here from the block layouts (any valid blocks do: tests dequantize them).
#include <functional>
#include <string>
#include <vector>

#include "engine/model/gguf.h"

namespace lwb::test {

// (Hugging Face tensor name, row length) → the type to store it in (F32 = as the source
// dtype: F32, F16 or BF16).
using GgufTypeChooser = std::function<GgmlType(const std::string& name, int rowLength)>;

// Q4_K_M-like: Q6_K for lm_head/v/down, Q4_K elsewhere; rows that are not a multiple of
// 256 fall back to Q5_0 (Q4_K) or Q8_0 (Q6_K), as llama-quantize does.
GgmlType q4kmLikeType(const std::string& name, int rowLength);

// srcDir: a folder with tokenizer.model or tokenizer.json. Returns dstPath.
std::string writeGgufFromFolder(const std::string& srcDir, const std::string& dstPath,
                                const GgufTypeChooser& typeFor = {});

// tokenizer.ggml.* for a tokenizer.json (model "gpt2", `pre` as given), as the
// converter writes them; for tokenizer tests without weights.
std::vector<std::pair<std::string, GgufValue>> ggufTokenizerMetadataFromJson(const std::string& tokenizerJsonPath,
                                                                             const std::string& pre);

// One row of `type` from floats (n a multiple of the block); every type the engine reads.
std::vector<uint8_t> quantizeRowForTest(GgmlType type, const float* x, int n);

}  // namespace lwb::test
