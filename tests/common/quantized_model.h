#pragma once
// The float model a quantized run computes with: a copy of a model folder whose Linear
// weights (q/k/v/o/gate/up/down_proj, lm_head) are replaced by dequantize(quantize(w))
// in F32, quantized exactly as the CPU executor does at load (same types, same Q4_K →
// Q8_0 fallback). The reference forward on the copy is what quantized logits are
// measured against.
#include <string>

#include "engine/model/quant_types.h"

namespace lwb::test {

// Writes dstDir (config, tokenizer files copied; model.safetensors rewritten) and
// returns its path. srcDir must hold a single model.safetensors with untied embeddings.
std::string writeDequantizedCopy(const std::string& srcDir, const std::string& dstDir, GgmlType quantization);

}  // namespace lwb::test
