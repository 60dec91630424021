#pragma once
// A small random Llama (or Qwen2 with q/k/v biases, or Qwen3 with per-head q/k RMSNorm)
// held in host memory with bf16 or f16 weights, for checks that must run
// without the engine library (tools/device-check.sh's standalone build): it describes
// itself to the CUDA plugin (LwbCudaModelDesc) and gives the reference logits of a whole
// sequence from the tests' one reference forward (exec/testing/reference_forward.h,
// float64) on the same weights. Header-only; no CUDA.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/common/dtype.h"
#include "engine/exec/cuda/plugin_abi.h"
#include "engine/exec/testing/reference_forward.h"

namespace lwb::devcheck {

struct HostLlamaSpec {
  int hidden = 256, inter = 512, heads = 4, kvHeads = 2, headDim = 64, layers = 2, vocab = 512, maxPositions = 1024;
  float eps = 1e-5f, theta = 10000.f, scale = 0.08f;
  uint64_t seed = 7;
  int dtype = LWB_CUDA_BF16;  // of every matrix: LWB_CUDA_BF16 or LWB_CUDA_F16 (norms too)
  bool tied = false;          // lm_head shares embed_tokens' storage
  bool qkvBias = false;       // Qwen2: q/k/v_proj biases, uniform in [-biasScale, biasScale]
  bool qkNorm = false;        // Qwen3: RMSNorm over each q and k head (weights [headDim]) before RoPE
  float biasScale = 0.5f;
};

class HostLlama {
 public:
  explicit HostLlama(const HostLlamaSpec& s) : s_(s) {
    std::mt19937_64 rng(s.seed);
    std::uniform_real_distribution<float> u(-s.scale, s.scale);
    auto matrix = [&](int64_t rows, int64_t cols) { return make(rows, cols, [&] { return u(rng); }); };
    auto norm = [&](int n) { return make(n, 1, [&] { return 1.f + u(rng); }); };
    std::uniform_real_distribution<float> ub(-s.biasScale, s.biasScale);
    auto bias = [&](int n) { return s.qkvBias ? make(n, 1, [&] { return ub(rng); }) : Tensor{}; };
    const int qs = s.heads * s.headDim, kvs = s.kvHeads * s.headDim;
    embed_ = matrix(s.vocab, s.hidden);
    if (!s.tied) lmHead_ = matrix(s.vocab, s.hidden);
    finalNorm_ = norm(s.hidden);
    for (int l = 0; l < s.layers; ++l) {
      layers_.push_back({norm(s.hidden), matrix(qs, s.hidden), matrix(kvs, s.hidden), matrix(kvs, s.hidden),
                         matrix(s.hidden, qs), norm(s.hidden), matrix(s.inter, s.hidden), matrix(s.inter, s.hidden),
                         matrix(s.hidden, s.inter), bias(qs), bias(kvs), bias(kvs)});
      if (s.qkNorm) layers_.back().qNorm = norm(s.headDim), layers_.back().kNorm = norm(s.headDim);
    }
    for (int i = 0; i < s.headDim / 2; ++i)
      invFreq_.push_back(float(1.0 / std::pow(double(s.theta), double(2 * i) / double(s.headDim))));
    describe();
    buildReference();
  }
  HostLlama(const HostLlama&) = delete;
  HostLlama& operator=(const HostLlama&) = delete;

  const LwbCudaModelDesc& desc() const { return desc_; }
  const HostLlamaSpec& spec() const { return s_; }

  // Logits of every position of `tokens`: [tokens.size() * vocab], computed in float64
  // and rounded to float for the comparisons.
  std::vector<float> logits(const std::vector<int>& tokens) const {
    reference::Mat hidden;
    for (int t : tokens) hidden.push_back(ref_.embed[size_t(t)]);
    for (const reference::Layer& l : ref_.layers) reference::runLayer(ref_.dims, l, hidden);
    const std::vector<double> out =
        reference::finalLogits(ref_.dims, ref_.finalNorm, s_.tied ? ref_.embed : ref_.lmHead, hidden);
    return std::vector<float>(out.begin(), out.end());
  }

 private:
  struct Tensor {
    int64_t rows = 0, cols = 0;
    int dtype = LWB_CUDA_BF16;
    std::vector<uint16_t> bits;  // bf16 or f16
    std::vector<float> f;        // the same values widened, for the reference
    LwbCudaTensor view() const { return rows ? LwbCudaTensor{bits.data(), dtype, rows, cols} : LwbCudaTensor{}; }
  };
  const Tensor& lmHead() const { return s_.tied ? embed_ : lmHead_; }
  struct Layer {
    Tensor inputNorm, q, k, v, o, postNorm, gate, up, down;
    Tensor qBias, kBias, vBias, qNorm, kNorm;  // empty (rows 0) unless Qwen2 / Qwen3
  };

  template <typename Gen>
  Tensor make(int64_t rows, int64_t cols, Gen gen) const {
    Tensor t;
    t.rows = rows;
    t.cols = cols;
    t.dtype = s_.dtype;
    const bool f16 = s_.dtype == LWB_CUDA_F16;
    for (int64_t i = 0; i < rows * cols; ++i) {
      t.bits.push_back(f16 ? floatToF16(gen()) : floatToBf16(gen()));
      t.f.push_back(f16 ? f16ToFloat(t.bits.back()) : bf16ToFloat(t.bits.back()));
    }
    return t;
  }

  // The same weights as doubles (widened from their bf16/f16 bits) for the reference.
  static reference::Vec vec(const Tensor& t) { return reference::Vec(t.f.begin(), t.f.end()); }
  static reference::Mat mat(const Tensor& t) {
    reference::Mat m(size_t(t.rows));
    for (int64_t r = 0; r < t.rows; ++r) m[size_t(r)].assign(t.f.begin() + r * t.cols, t.f.begin() + (r + 1) * t.cols);
    return m;
  }
  void buildReference() {
    ref_.dims = {s_.heads, s_.kvHeads, s_.headDim, double(s_.eps), invFreq_};
    ref_.embed = mat(embed_);
    if (!s_.tied) ref_.lmHead = mat(lmHead_);
    ref_.finalNorm = vec(finalNorm_);
    for (const Layer& l : layers_)
      ref_.layers.push_back({vec(l.inputNorm), vec(l.postNorm), mat(l.q), mat(l.k), mat(l.v), mat(l.o), mat(l.gate),
                             mat(l.up), mat(l.down), vec(l.qBias), vec(l.kBias), vec(l.vBias), vec(l.qNorm),
                             vec(l.kNorm)});
  }

  void describe() {
    for (const Layer& l : layers_)
      layerViews_.push_back({l.inputNorm.view(), l.q.view(), l.k.view(), l.v.view(), l.o.view(),
                             l.postNorm.view(), l.gate.view(), l.up.view(), l.down.view(), l.qBias.view(),
                             l.kBias.view(), l.vBias.view(), l.qNorm.view(), l.kNorm.view()});
    desc_ = LwbCudaModelDesc{};
    desc_.hiddenSize = s_.hidden;
    desc_.intermediateSize = s_.inter;
    desc_.numAttentionHeads = s_.heads;
    desc_.numKeyValueHeads = s_.kvHeads;
    desc_.headDim = s_.headDim;
    desc_.numHiddenLayers = s_.layers;
    desc_.vocabSize = s_.vocab;
    desc_.maxPositionEmbeddings = s_.maxPositions;
    desc_.rmsNormEps = s_.eps;
    desc_.ropeInvFreq = invFreq_.data();
    desc_.embedTokens = embed_.view();
    desc_.finalNorm = finalNorm_.view();
    desc_.lmHead = lmHead().view();  // same data pointer when tied: the plugin shares it
    desc_.layers = layerViews_.data();
    desc_.hasQkvBias = s_.qkvBias ? 1 : 0;
    desc_.hasQkNorm = s_.qkNorm ? 1 : 0;
  }

  HostLlamaSpec s_;
  Tensor embed_, lmHead_, finalNorm_;
  std::vector<Layer> layers_;
  std::vector<float> invFreq_;
  std::vector<LwbCudaLayer> layerViews_;
  LwbCudaModelDesc desc_{};
  struct {
    reference::Dims dims;
    reference::Mat embed, lmHead;  // lmHead empty when tied
    reference::Vec finalNorm;
    std::vector<reference::Layer> layers;
  } ref_;
};

}  // namespace lwb::devcheck
