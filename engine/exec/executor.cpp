#include "engine/exec/executor.h"

#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cuda_loader.h"
#include "engine/exec/sim/sim_executor.h"
#include "engine/model/model.h"

namespace lwb {

int ForwardBatch::numLogitRows() const {
  int n = 0;
  for (const SeqSlice& s : seqs) n += s.needLogits ? s.numLogits : 0;
  return n;
}

GgmlType parseQuantization(const std::string& name) {
  if (name.empty() || name == "none") return GgmlType::F32;
  if (name == "q8_0" || name == "Q8_0") return GgmlType::Q8_0;
  if (name == "q4_k" || name == "Q4_K") return GgmlType::Q4_K;
  throw Error(std::string(knob::kQuantization) + ": expected q8_0 or q4_k, found '" + name + "'");
}

DType cpuKvCacheType(const std::string& name, bool quantizedWeights) {
  findKnob(knob::kKvCacheDtype)->check(name);
  if (name == "bfloat16" || (name == "auto" && quantizedWeights)) return DType::BF16;
  if (name == "fp8" || name == "fp8_e4m3") return DType::F8E4M3;
  if (name == "fp8_e5m2") return DType::F8E5M2;
  return DType::F32;
}

void checkCudaKvCacheDtype(const std::string& name, bool f16Activations) {
  findKnob(knob::kKvCacheDtype)->check(name);
  const std::string have = f16Activations ? "f16" : "bf16";
  if (name == "auto" || (name == "bfloat16" && !f16Activations)) return;
  throw Error(std::string(knob::kKvCacheDtype) + " " + name + ": the CUDA backend keeps the KV cache in " + have +
              " for this model (its activation dtype" + (f16Activations ? ": every weight matrix is F16" : "") +
              ") and cannot store it as " + name + "; use auto" + (f16Activations ? "" : " or bfloat16") +
              ", or --backend cpu");
}

// A GGUF tensor stored in ggml blocks (the CUDA plugin reads F32/F16/BF16 only).
static bool hasBlockWeights(const Model& model) {
  if (!model.weights) return false;
  for (const auto& [name, view] : model.weights->all())
    if (view.isQuantized()) return true;
  return false;
}

std::unique_ptr<Executor> createExecutor(std::shared_ptr<const Model> model, const ExecutorOptions& options,
                                         std::string* notice) {
  const std::string& backend = options.backend;
  findKnob(knob::kBackend)->check(backend);  // callers outside the engine skip its validation
  if (backend == "sim") return createSimExecutor(std::move(model), options);
  const GgmlType quantization = parseQuantization(options.quantization);
  // Quantized weights have CPU kernels only, so a quantized run picks the CPU.
  check(quantization == GgmlType::F32 || backend != "cuda",
        std::string(knob::kQuantization) + " " + options.quantization +
            ": quantized weights run on the CPU backend only");
  const bool blocks = hasBlockWeights(*model);
  const DType kvType = cpuKvCacheType(options.kvCacheDtype, blocks || quantization != GgmlType::F32);
  check(!blocks || backend != "cuda", model->dir + ": quantized GGUF weights run on the CPU backend only");
  if (backend != "cpu" && quantization == GgmlType::F32 && !blocks) {
    std::string reason;
    if (auto cuda = tryCreateCudaExecutor(model, options, &reason)) return cuda;
    check(backend != "cuda", "--backend cuda: the CUDA backend is not usable here: " + reason);
    if (notice) *notice = "using the CPU backend: " + reason;
  } else if (backend == "auto" && notice) {
    *notice = blocks ? "using the CPU backend: quantized GGUF weights run on the CPU only"
                     : "using the CPU backend: " + std::string(knob::kQuantization) + " " + options.quantization +
                           " runs on the CPU only";
  }
  return createCpuExecutor(std::move(model), options.numThreads, quantization, kvType);
}

}  // namespace lwb
