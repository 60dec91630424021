#pragma once
// bench_cpu's models and machine measurements: random or converted in-memory models of a
// given shape, the FLOPs and bytes a decode step costs on them, and the streaming
// bandwidth and roofline bound they are compared with. Included by bench_cpu.cpp only.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/exec/cpu/cpu_system_info.h"
#include "engine/exec/cpu/thread_pool.h"
#include "engine/model/model.h"

namespace lwb::bench {

// A Model whose weights live in buffers this struct owns (no files).
struct OwnedModel {
  Model model;
  std::deque<TensorView> views;
  std::deque<std::vector<uint8_t>> buffers;
};

inline uint64_t nextRandom(uint64_t& s) {  // xorshift64*: fast enough for 10^9 weights
  s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
  return s * 2685821657736338717ull;
}

inline const TensorView* addTensor(OwnedModel& m, const std::string& name, DType dtype, std::vector<int64_t> shape,
                            uint64_t& rng, float scale, float offset, const TensorView* copyFrom = nullptr) {
  size_t n = 1;
  for (int64_t d : shape) n *= size_t(d);
  std::vector<uint8_t>& buf = m.buffers.emplace_back(n * dtypeSize(dtype));
  for (size_t i = 0; i < n; ++i) {
    float v = offset + scale * (float(nextRandom(rng) >> 40) / float(1 << 24) * 2.0f - 1.0f);
    if (copyFrom) std::memcpy(&v, static_cast<const float*>(copyFrom->data) + i, 4);  // f32 source
    if (dtype == DType::F32) std::memcpy(&buf[4 * i], &v, 4);
    else {
      const uint16_t h = dtype == DType::BF16 ? floatToBf16(v) : floatToF16(v);
      std::memcpy(&buf[2 * i], &h, 2);
    }
  }
  return &m.views.emplace_back(TensorView{name, dtype, std::move(shape), buf.data(), "(memory)"});
}

// Random weights of `cfg`, or a `dtype` copy of `source`'s f32 weights when given.
inline std::shared_ptr<const Model> makeModel(const ModelConfig& cfg, DType dtype, const Model* source = nullptr) {
  auto owned = std::make_shared<OwnedModel>();
  Model& m = owned->model;
  m.config = cfg;
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  const int64_t h = cfg.hiddenSize, inter = cfg.intermediateSize, qs = cfg.qSize(), kvs = cfg.kvSize();
  auto add = [&](const std::string& name, std::vector<int64_t> shape, bool norm, const TensorView* src) {
    return addTensor(*owned, name, norm ? DType::F32 : dtype, std::move(shape), rng, norm ? 0.0f : 0.05f,
                     norm ? 1.0f : 0.0f, src && src->dtype == DType::F32 ? src : nullptr);
  };
  const LlamaWeights* s = source ? &source->llama : nullptr;
  m.llama.embedTokens = add("embed", {cfg.vocabSize, h}, false, s ? s->embedTokens : nullptr);
  for (int l = 0; l < cfg.numHiddenLayers; ++l) {
    const LlamaLayerWeights* sl = s ? &s->layers[size_t(l)] : nullptr;
    LlamaLayerWeights w;
    w.inputNorm = add("in_norm", {h}, true, sl ? sl->inputNorm : nullptr);
    w.q = add("q", {qs, h}, false, sl ? sl->q : nullptr);
    w.k = add("k", {kvs, h}, false, sl ? sl->k : nullptr);
    w.v = add("v", {kvs, h}, false, sl ? sl->v : nullptr);
    w.o = add("o", {h, qs}, false, sl ? sl->o : nullptr);
    if (cfg.qkvBias) {
      w.qBias = add("q_bias", {qs}, false, nullptr);
      w.kBias = add("k_bias", {kvs}, false, nullptr);
      w.vBias = add("v_bias", {kvs}, false, nullptr);
    }
    if (cfg.qkNorm) {
      w.qNorm = add("q_norm", {cfg.headDim}, true, nullptr);
      w.kNorm = add("k_norm", {cfg.headDim}, true, nullptr);
    }
    w.postAttnNorm = add("post_norm", {h}, true, sl ? sl->postAttnNorm : nullptr);
    w.gate = add("gate", {inter, h}, false, sl ? sl->gate : nullptr);
    w.up = add("up", {inter, h}, false, sl ? sl->up : nullptr);
    w.down = add("down", {h, inter}, false, sl ? sl->down : nullptr);
    m.llama.layers.push_back(w);
  }
  m.llama.finalNorm = add("norm", {h}, true, s ? s->finalNorm : nullptr);
  m.llama.lmHead = cfg.tieWordEmbeddings ? m.llama.embedTokens : add("lm_head", {cfg.vocabSize, h}, false, s ? s->lmHead : nullptr);
  return std::shared_ptr<const Model>(owned, &owned->model);
}

inline ModelConfig llamaConfig(int hidden, int layers, int heads, int kvHeads, int inter, int vocab, bool tied) {
  ModelConfig c;
  c.architecture = "LlamaForCausalLM";
  c.hiddenSize = hidden, c.numHiddenLayers = layers, c.numAttentionHeads = heads, c.numKeyValueHeads = kvHeads;
  c.headDim = hidden / heads, c.intermediateSize = inter, c.vocabSize = vocab, c.tieWordEmbeddings = tied;
  c.maxPositionEmbeddings = 4096, c.rmsNormEps = 1e-5f;
  return c;
}

// Qwen2.5-0.5B-Instruct's config.json: q/k/v biases, tied 151,936-token vocabulary.
inline ModelConfig qwen25HalfBConfig(int layers) {
  ModelConfig c = llamaConfig(896, layers, 14, 2, 4864, 151936, true);
  c.architecture = "Qwen2ForCausalLM";
  c.qkvBias = true;
  c.ropeTheta = 1e6f, c.rmsNormEps = 1e-6f;
  return c;
}

// Bytes of the matrices one decode step streams (every Linear and lm_head).
inline double matrixBytes(const Model& m) {
  double bytes = 0;
  auto add = [&](const TensorView* t) { bytes += double(t->shape[0]) * double(t->shape[1]) * double(dtypeSize(t->dtype)); };
  for (const LlamaLayerWeights& w : m.llama.layers)
    for (const TensorView* t : {w.q, w.k, w.v, w.o, w.gate, w.up, w.down}) add(t);
  add(m.llama.lmHead);
  return bytes;
}

inline double matrixParams(const Model& m) {
  double n = 0;
  for (const LlamaLayerWeights& w : m.llama.layers)
    for (const TensorView* t : {w.q, w.k, w.v, w.o, w.gate, w.up, w.down}) n += double(t->shape[0]) * double(t->shape[1]);
  return n;  // lm_head excluded: prefill computes logits for the last row only
}

// Reads p[0, n) as 8 streams in lockstep, a cache line of each per step (as a decode
// GEMV reads 8 weight panels): one stream per task leaves the prefetchers idle part of the time.
inline uint64_t readStreams(const uint64_t* p, size_t n) {
  constexpr int kStreams = 8, kLine = 8;
  const size_t part = n / kStreams / kLine * kLine;
  uint64_t acc[kStreams][kLine] = {};
  for (size_t i = 0; i < part; i += kLine)
    for (int s = 0; s < kStreams; ++s)
      for (int k = 0; k < kLine; ++k) acc[s][k] += p[size_t(s) * part + i + size_t(k)];
  uint64_t sum = 0;
  for (const auto& a : acc)
    for (uint64_t v : a) sum += v;
  return sum;
}

// Multi-threaded streaming read of 1 GiB (512 MiB with --quick), best of 5 → GB/s.
inline double measureBandwidth(int threads, bool quick) {
  const size_t n = (quick ? (size_t(512) << 20) : (size_t(1) << 30)) / sizeof(uint64_t);
  std::vector<uint64_t> buf(n);
  for (size_t i = 0; i < n; ++i) buf[i] = i;
  ThreadPool pool(threads);
  const int tasks = 64;
  std::vector<uint64_t> sums(static_cast<size_t>(tasks));
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    pool.parallelFor(tasks, [&](int t, int) { sums[size_t(t)] = readStreams(buf.data() + n / size_t(tasks) * size_t(t), n / size_t(tasks)); });
    best = std::max(best, double(n / size_t(tasks) * size_t(tasks) * sizeof(uint64_t)) / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 1e9);
  }
  uint64_t check = 0;
  for (uint64_t v : sums) check += v;
  if (check == 42) std::printf(" ");  // keeps the reads observable
  return best;
}

// The roofline of a decode step: the most GFLOP/s it can reach. When what it reads (weights
// and KV) fits in half the L3, prefill's GEMM rate; otherwise also no more than the
// streaming bandwidth times its FLOPs per byte read (a step of B rows does 2·B FLOPs per
// weight, so B FLOPs per byte of bf16 weights).
struct DecodeBound {
  double gflops = 0;
  bool memory = false;  // the bandwidth term is the smaller one
};

// Whether a decode step's bytes count as cache-resident for the bounds below: they fit in
// half the L3, or no bandwidth was measured.
inline bool stepInCache(double stepBytes, double bandwidthGBs) {
  static const double cache = double(l3CacheBytes());  // cpu_system_info.h; read once
  return bandwidthGBs <= 0 || (cache > 0 && stepBytes <= cache / 2);
}

inline DecodeBound decodeBound(double prefillGflops, double stepFlops, double stepBytes, double bandwidthGBs) {
  if (stepInCache(stepBytes, bandwidthGBs)) return {prefillGflops, false};
  const double memoryGflops = bandwidthGBs * stepFlops / stepBytes;
  return memoryGflops < prefillGflops ? DecodeBound{memoryGflops, true} : DecodeBound{prefillGflops, false};
}

// The same step with its phases in sequence, as the executor runs them: the GEMMs (at
// prefill's rate, or the weights' stream, whichever is slower), then attention reading the
// cached K and V at the streaming bandwidth while the cores wait (a layer's attention
// needs that layer's Q, and its output feeds the next GEMM). With an f32 KV cache at batch
// 8-16 that wait is a visible share of a step, and prefetching the next layer's K and V
// during the MLP costs the GEMMs what it saves in attention, so the steps are held against
// this bound too. Prefill's rate when the step's bytes fit in half the L3.
inline double serialBoundGflops(double prefillGflops, double stepFlops, double weightBytes, double kvBytes,
                                double bandwidthGBs) {
  if (stepInCache(weightBytes + kvBytes, bandwidthGBs)) return prefillGflops;
  const double bw = bandwidthGBs * 1e9;
  const double seconds = std::max(stepFlops / (prefillGflops * 1e9), weightBytes / bw) + kvBytes / bw;
  return stepFlops / seconds / 1e9;
}

}  // namespace lwb::bench
