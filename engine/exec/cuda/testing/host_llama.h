#pragma once
// A small random Llama (or Qwen2 with q/k/v biases, or Qwen3 with per-head q/k RMSNorm)
// held in host memory with bf16 or f16 weights, for checks that must run
// without the engine library (tools/device-check.sh's standalone build): it describes
// itself to the CUDA plugin (LwbCudaModelDesc) and has a naive fp32 forward over a whole
// sequence as the reference. Header-only; no CUDA.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/common/dtype.h"
#include "engine/exec/cuda/plugin_abi.h"

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
  }
  HostLlama(const HostLlama&) = delete;
  HostLlama& operator=(const HostLlama&) = delete;

  const LwbCudaModelDesc& desc() const { return desc_; }
  const HostLlamaSpec& spec() const { return s_; }

  // Logits of every position of `tokens`: [tokens.size() * vocab], fp32 arithmetic.
  std::vector<float> logits(const std::vector<int>& tokens) const {
    const int n = int(tokens.size()), h = s_.hidden;
    std::vector<float> x(size_t(n) * h);
    for (int t = 0; t < n; ++t)
      for (int i = 0; i < h; ++i) x[size_t(t) * h + i] = embed_.at(tokens[size_t(t)], i);
    for (const Layer& l : layers_) layer(l, n, x);
    std::vector<float> out(size_t(n) * s_.vocab);
    for (int t = 0; t < n; ++t) {
      const std::vector<float> y = rmsNorm(&x[size_t(t) * h], finalNorm_);
      for (int v = 0; v < s_.vocab; ++v) out[size_t(t) * s_.vocab + v] = dot(lmHead(), v, y.data());
    }
    return out;
  }

 private:
  struct Tensor {
    int64_t rows = 0, cols = 0;
    int dtype = LWB_CUDA_BF16;
    std::vector<uint16_t> bits;  // bf16 or f16
    std::vector<float> f;        // the same values widened, for the reference
    float at(int64_t r, int64_t c) const { return f[size_t(r * cols + c)]; }
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

  static float dot(const Tensor& w, int row, const float* x) {
    float s = 0;
    for (int64_t i = 0; i < w.cols; ++i) s += w.at(row, i) * x[i];
    return s;
  }

  // Over w.rows elements: the hidden size, or one head (Qwen3's q/k norms).
  std::vector<float> rmsNorm(const float* x, const Tensor& w) const {
    const int n = int(w.rows);
    float ss = 0;
    for (int i = 0; i < n; ++i) ss += x[i] * x[i];
    const float inv = 1.f / std::sqrt(ss / float(n) + s_.eps);
    std::vector<float> y(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) y[size_t(i)] = x[i] * inv * w.f[size_t(i)];
    return y;
  }

  // y = w·x (+ bias when it has one).
  std::vector<float> linear(const Tensor& w, const std::vector<float>& x, const Tensor* bias = nullptr) const {
    std::vector<float> y(size_t(w.rows));
    for (int64_t r = 0; r < w.rows; ++r) y[size_t(r)] = dot(w, int(r), x.data()) + (bias && bias->rows ? bias->f[size_t(r)] : 0.f);
    return y;
  }

  // Qwen3: RMSNorm of each head of v in place.
  void headNorm(std::vector<float>& v, const Tensor& w) const {
    if (!w.rows) return;
    const size_t d = size_t(s_.headDim);
    for (size_t h = 0; h < v.size() / d; ++h) {
      const std::vector<float> y = rmsNorm(&v[h * d], w);
      std::copy(y.begin(), y.end(), v.begin() + long(h * d));
    }
  }

  void rope(std::vector<float>& v, int numHeads, int pos) const {
    const int d = s_.headDim, half = d / 2;
    for (int hd = 0; hd < numHeads; ++hd)
      for (int i = 0; i < half; ++i) {
        volatile float angle = float(pos) * invFreq_[size_t(i)];  // rounded to float, as HF does
        const float c = float(std::cos(double(angle))), sn = float(std::sin(double(angle)));
        float& a = v[size_t(hd * d + i)];
        float& b = v[size_t(hd * d + i + half)];
        const float ra = a * c - b * sn, rb = b * c + a * sn;
        a = ra;
        b = rb;
      }
  }

  void layer(const Layer& w, int n, std::vector<float>& x) const {
    const int h = s_.hidden, d = s_.headDim, group = s_.heads / s_.kvHeads;
    const size_t rows = static_cast<size_t>(n);
    std::vector<std::vector<float>> q(rows), k(rows), v(rows);
    for (int t = 0; t < n; ++t) {
      const std::vector<float> xn = rmsNorm(&x[size_t(t) * h], w.inputNorm);
      q[size_t(t)] = linear(w.q, xn, &w.qBias);
      k[size_t(t)] = linear(w.k, xn, &w.kBias);
      v[size_t(t)] = linear(w.v, xn, &w.vBias);
      headNorm(q[size_t(t)], w.qNorm);
      headNorm(k[size_t(t)], w.kNorm);
      rope(q[size_t(t)], s_.heads, t);
      rope(k[size_t(t)], s_.kvHeads, t);
    }
    const float scale = 1.f / std::sqrt(float(d));
    for (int t = 0; t < n; ++t) {
      std::vector<float> attn(size_t(s_.heads * d), 0.f);
      for (int hd = 0; hd < s_.heads; ++hd) {
        const int kvh = hd / group;
        std::vector<float> p(size_t(t + 1));
        float mx = -INFINITY, sum = 0;
        for (int j = 0; j <= t; ++j) {
          float sc = 0;
          for (int i = 0; i < d; ++i) sc += q[size_t(t)][size_t(hd * d + i)] * k[size_t(j)][size_t(kvh * d + i)];
          p[size_t(j)] = sc * scale;
          mx = std::max(mx, p[size_t(j)]);
        }
        for (float& e : p) sum += (e = std::exp(e - mx));
        for (int j = 0; j <= t; ++j)
          for (int i = 0; i < d; ++i) attn[size_t(hd * d + i)] += p[size_t(j)] / sum * v[size_t(j)][size_t(kvh * d + i)];
      }
      const std::vector<float> o = linear(w.o, attn);
      float* xt = &x[size_t(t) * h];
      for (int i = 0; i < h; ++i) xt[i] += o[size_t(i)];
      const std::vector<float> xn = rmsNorm(xt, w.postNorm);
      const std::vector<float> g = linear(w.gate, xn), u = linear(w.up, xn);
      std::vector<float> act(g.size());
      for (size_t i = 0; i < g.size(); ++i) act[i] = g[i] / (1.f + std::exp(-g[i])) * u[i];
      const std::vector<float> down = linear(w.down, act);
      for (int i = 0; i < h; ++i) xt[i] += down[size_t(i)];
    }
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
};

}  // namespace lwb::devcheck
