#pragma once
// Drives the CUDA plugin's executor by hand and compares its logits with the fp32
// reference of a HostLlama: the parity runs of bench_cuda (and so of
// tools/device-check.sh's standalone build). Qt-free and header-only.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/exec/cuda/testing/host_llama.h"
#include "engine/exec/cuda_loader.h"
#include "engine/exec/executor.h"

namespace lwb::devcheck {

// ---- driving an executor -----------------------------------------------------------
// A sequence with its own contiguous-or-not block list; the caller hands out blocks.
struct Seq {
  std::vector<int> tokens;
  int numComputed = 0;
  std::vector<int32_t> blocks;
};

// Adds the next `n` tokens of `s` to `batch`.
inline void addChunk(ForwardBatch& batch, Seq& s, int n, bool needLogits, int64_t id) {
  SeqSlice slice;
  slice.requestId = id;
  slice.firstRow = batch.numRows();
  slice.numTokens = n;
  slice.numCachedTokens = s.numComputed;
  slice.blockTable = s.blocks;
  slice.needLogits = needLogits;
  for (int i = 0; i < n; ++i) batch.tokenIds.push_back(s.tokens[size_t(s.numComputed + i)]);
  batch.seqs.push_back(slice);
  s.numComputed += n;
}

inline std::vector<int32_t> blockRange(int first, int count, bool descending) {
  std::vector<int32_t> b(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) b[size_t(i)] = descending ? first + count - 1 - i : first + i;
  return b;
}

struct PluginExecutor {
  const lwb::cudaplugin::Plugin* plugin;
  lwb::Executor* exec;
  ~PluginExecutor() { plugin->destroy(exec); }
};

inline std::unique_ptr<PluginExecutor> create(const lwb::cudaplugin::Plugin& p, const LwbCudaModelDesc& desc, bool graphs) {
  LwbCudaOptions opts{0, 0.9, graphs ? 1 : 0};
  char err[1024] = {0};
  int status = LWB_CUDA_FAILED;
  lwb::Executor* e = p.create(&desc, &opts, &status, err, sizeof err);
  if (!e) throw lwb::Error(std::string("creating the CUDA executor: ") + err);
  return std::unique_ptr<PluginExecutor>(new PluginExecutor{&p, e});
}

// ---- parity: random GQA model vs the reference forward (float64) --------------------
// Two sequences with the same 700 tokens, different block orders: A prefills in chunks
// of 128/128/44 while B prefills 300 at once, then both decode to 700 (contexts past
// 512 take the split-K path). Every logits row is compared with the reference row.
struct ParityStats {
  double maxAbs = 0, maxRef = 0;
  int rows = 0, argmaxMismatch = 0;
  std::vector<float> all;
};

inline void compareRow(const float* got, const float* ref, int vocab, ParityStats& st) {
  int gotArg = 0, refArg = 0;
  for (int v = 0; v < vocab; ++v) {
    st.maxAbs = std::max(st.maxAbs, double(std::fabs(got[v] - ref[v])));
    st.maxRef = std::max(st.maxRef, double(std::fabs(ref[v])));
    if (got[v] > got[gotArg]) gotArg = v;
    if (ref[v] > ref[refArg]) refArg = v;
  }
  float second = -INFINITY;  // near-ties may flip: count only clear winners
  for (int v = 0; v < vocab; ++v)
    if (v != refArg) second = std::max(second, ref[v]);
  if (gotArg != refArg && ref[refArg] - second > 1e-2f * float(st.maxRef)) ++st.argmaxMismatch;
  st.all.insert(st.all.end(), got, got + vocab);
  ++st.rows;
}

// Runs `batch` and compares each logits row with the reference of its sequence
// (refs[requestId], all positions of that sequence's tokens).
inline void runAndCompare(lwb::Executor& ex, const ForwardBatch& batch, const std::vector<const std::vector<float>*>& refs,
                   int vocab, ParityStats& st) {
  ForwardResult out;
  ex.forward(batch, out);
  int row = 0;
  for (const SeqSlice& s : batch.seqs) {
    if (!s.needLogits) continue;
    const size_t pos = size_t(s.numCachedTokens + s.numTokens - 1);
    compareRow(out.row(row++), refs[size_t(s.requestId)]->data() + pos * size_t(vocab), vocab, st);
  }
}

inline ParityStats parityRandom(const lwb::cudaplugin::Plugin& p, const lwb::devcheck::HostLlama& model,
                         const std::vector<int>& tokens, const std::vector<float>& ref, bool graphs) {
  const int vocab = model.spec().vocab, n = int(tokens.size()), blocksPerSeq = (n + 15) / 16;
  auto ex = create(p, model.desc(), graphs);
  ex->exec->allocateKvCache(4 * blocksPerSeq, 16);
  Seq a{tokens, 0, blockRange(0, blocksPerSeq, false)};
  Seq b{tokens, 0, blockRange(2 * blocksPerSeq, 2 * blocksPerSeq, true)};  // far, descending
  const std::vector<const std::vector<float>*> refs = {&ref, &ref};
  ParityStats st;
  const int prompt = 300;
  for (int chunk : {128, 128, 44}) {
    ForwardBatch batch;
    addChunk(batch, a, chunk, a.numComputed + chunk == prompt, 0);
    if (b.numComputed == 0) addChunk(batch, b, prompt, true, 1);
    runAndCompare(*ex->exec, batch, refs, vocab, st);
  }
  while (a.numComputed < n) {
    ForwardBatch batch;
    addChunk(batch, a, 1, true, 0);
    addChunk(batch, b, 1, true, 1);
    runAndCompare(*ex->exec, batch, refs, vocab, st);
  }
  return st;
}

// Decode-only batches of numSeqs sequences run in the CUDA-graph bucket above (3 -> 4,
// 5 -> 8, 17 -> 32): padded rows must change nothing. Prompts of 9..17 tokens in one
// mixed step, then 6 decode steps of all sequences (eager + capture, then replays).
inline ParityStats parityPadded(const lwb::cudaplugin::Plugin& p, const lwb::devcheck::HostLlama& model, int numSeqs,
                         bool graphs) {
  const int vocab = model.spec().vocab;
  std::vector<Seq> seqs;
  std::vector<std::vector<float>> refs;
  std::mt19937 rng{unsigned(numSeqs)};
  for (int i = 0; i < numSeqs; ++i) {
    std::vector<int> tokens(24);
    for (int& t : tokens) t = int(rng() % unsigned(vocab));
    refs.push_back(model.logits(tokens));
    seqs.push_back({tokens, 0, {2 * i + 1, 2 * i}});
  }
  std::vector<const std::vector<float>*> refPtrs;
  for (const auto& r : refs) refPtrs.push_back(&r);
  auto ex = create(p, model.desc(), graphs);
  ex->exec->allocateKvCache(2 * numSeqs, 16);
  ParityStats st;
  for (int step = 0; step < 7; ++step) {
    ForwardBatch batch;
    for (int i = 0; i < numSeqs; ++i) addChunk(batch, seqs[size_t(i)], step == 0 ? 9 + i % 9 : 1, true, i);
    runAndCompare(*ex->exec, batch, refPtrs, vocab, st);
  }
  return st;
}

}  // namespace lwb::devcheck
