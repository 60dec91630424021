#pragma once
// The one rule for comparing a greedy run of the CPU executor (f32 arithmetic) with a
// greedy run on the GPU (bf16 weights and activations): bf16 moves logits by up to
// about 0.017 while the gap between the top two candidates on a greedy path can fall to
// 0.005, so exact token equality is not a fair test. The tokens must agree up to the
// first position where the CPU's top-two margin is below kNearTieMargin; there either
// token is right, and after it the two runs feed different inputs, so the comparison
// stops. Used by tst_cuda_executor (engine runs and the default model) and bench_cuda.
// Qt-free and header-only.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace lwb::devcheck {

// Logit (= logprob) gap below which the CPU's winner is a near-tie.
constexpr float kNearTieMargin = 0.05f;

struct GreedyMatch {
  bool ok = true;
  size_t compared = 0;    // positions where both runs produced the same token
  bool stoppedAtTie = false;  // the runs parted at a near-tie (allowed)
  std::string message;    // why not ok
};

// Top-1 minus top-2 of a logits row (infinity for a single candidate).
inline float topTwoMargin(const float* logits, size_t n) {
  if (n < 2) return std::numeric_limits<float>::infinity();
  std::vector<float> top(logits, logits + n);
  std::partial_sort(top.begin(), top.begin() + 2, top.end(), std::greater<float>());
  return top[0] - top[1];
}

// `cpuMargins[i]`: the CPU's top-two margin at token i.
inline GreedyMatch compareGreedy(const std::vector<int>& cpu, const std::vector<float>& cpuMargins,
                                 const std::vector<int>& gpu) {
  GreedyMatch m;
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (i >= gpu.size()) {
      m.ok = false;
      m.message = "GPU run has " + std::to_string(gpu.size()) + " tokens, CPU " + std::to_string(cpu.size());
      return m;
    }
    if (gpu[i] == cpu[i]) {
      ++m.compared;
      continue;
    }
    const float margin = i < cpuMargins.size() ? cpuMargins[i] : -1.f;
    if (margin >= 0 && margin < kNearTieMargin) {
      m.stoppedAtTie = true;
      return m;
    }
    m.ok = false;
    m.message = "token " + std::to_string(i) + ": GPU " + std::to_string(gpu[i]) + ", CPU " + std::to_string(cpu[i]) +
                " (CPU margin " + std::to_string(margin) + ", near-tie below " + std::to_string(kNearTieMargin) + ")";
    return m;
  }
  return m;
}

}  // namespace lwb::devcheck
