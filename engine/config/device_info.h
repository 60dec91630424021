#pragma once
// What an executor runs on. Declared with the knobs because two knobs' defaults
// (max_num_batched_tokens, max_num_seqs) depend on the device, as in vLLM.
#include <cstddef>
#include <string>

namespace lwb {

struct DeviceInfo {
  std::string backend;      // "cpu" | "cuda" | "sim"
  std::string name;         // "AMD EPYC ... (2 threads, AVX-512)" | "NVIDIA H200"
  size_t totalMemory = 0;   // bytes
  size_t freeMemory = 0;    // bytes, at query time
  std::string weightType;   // how Linear weights are held: "BF16", "Q4_K+Q8_0", ... ("" if not told)
  size_t weightBytes = 0;   // bytes of the Linear weights as the executor holds them
  bool simulatedGpu = false;  // sim backend on a GPU profile (vLLM's GPU defaults apply)
  bool gpu() const { return backend == "cuda" || simulatedGpu; }
};

}  // namespace lwb
