#pragma once
// Drives an Executor by hand (no scheduler): requests with their own block tables advance
// by given chunk sizes per step. Shared by the CPU and CUDA executor tests.
#include <cstdint>
#include <vector>

#include "engine/exec/executor.h"

namespace lwb::test {

// One request's state.
struct Seq {
  int64_t id = 0;
  std::vector<int> tokens;  // all tokens it will ever feed
  std::vector<int32_t> blocks;
  int numComputed = 0;
};

SeqSlice sliceFor(const Seq& s, int firstRow, int numTokens, bool needLogits);

// [step][request] → tokens this step (0 = idle).
using Schedule = std::vector<std::vector<int>>;

// Runs the steps; a slice asks for logits when it ends at or past logitsFrom[request].
// Returns the logits rows (raw floats) each request produced, concatenated in step order.
std::vector<std::vector<float>> runSchedule(Executor& ex, std::vector<Seq> seqs, const Schedule& schedule,
                                            const std::vector<int>& logitsFrom);

// Greedy decode of n tokens after `prompt`, one request alone on a fresh KV cache.
std::vector<int> greedyIds(Executor& ex, std::vector<int> prompt, int n);

}  // namespace lwb::test
