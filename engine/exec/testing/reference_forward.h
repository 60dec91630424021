#pragma once
// The one reference forward pass every executor is tested against: a naive,
// double-precision Llama-family forward (Hugging Face LlamaForCausalLM semantics, plus
// Qwen2's q/k/v biases and Qwen3's per-head q/k RMSNorm; tied embeddings are the
// caller's lm_head). Contiguous, no KV paging, recomputes the whole sequence: slow on
// purpose and written to be obviously correct.
// Header-only and free of the engine library, so the Qt tests (tests/common/
// reference_llama: weights from a loaded Model, quantized ones dequantized) and the
// standalone CUDA device check (exec/cuda/testing/host_llama.h: its own random weights)
// run the same code. Weights come in as doubles; the caller converts them.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace lwb::reference {

using Vec = std::vector<double>;
using Mat = std::vector<Vec>;  // [rows][cols]

struct Dims {
  int numHeads = 0, numKvHeads = 0, headDim = 0;
  double rmsNormEps = 1e-5;
  std::vector<float> ropeInvFreq;  // [headDim / 2], as the model computes it
};

struct Layer {
  Vec inputNorm, postAttnNorm;            // [hidden]
  Mat q, k, v, o, gate, up, down;         // Linear weights [out][in]
  Vec qBias, kBias, vBias, qNorm, kNorm;  // empty when the architecture has none
};

// y = W x (+ b when b is not empty) for W [out][in].
inline Vec linear(const Mat& w, const Vec& x, const Vec& b = {}) {
  Vec y(w.size(), 0.0);
  for (size_t o = 0; o < w.size(); ++o)
    for (size_t i = 0; i < x.size(); ++i) y[o] += w[o][i] * x[i];
  for (size_t i = 0; i < b.size(); ++i) y[i] += b[i];
  return y;
}

inline Vec rmsNorm(const Vec& x, const Vec& w, double eps) {
  double ss = 0;
  for (double v : x) ss += v * v;
  const double inv = 1.0 / std::sqrt(ss / double(x.size()) + eps);
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * inv * w[i];
  return y;
}

// rotate_half RoPE on every head of `x` ([numHeads * headDim]) at position `pos`.
inline void applyRope(Vec& x, int numHeads, int headDim, int pos, const std::vector<float>& invFreq) {
  const int half = headDim / 2;
  for (int h = 0; h < numHeads; ++h) {
    double* v = x.data() + size_t(h) * size_t(headDim);
    for (int i = 0; i < half; ++i) {
      const double angle = double(pos) * double(invFreq[size_t(i)]);
      const double c = std::cos(angle), s = std::sin(angle);
      const double a = v[i], b = v[i + half];
      v[i] = a * c - b * s;
      v[i + half] = b * c + a * s;
    }
  }
}

// Qwen3: RMSNorm over each head of x ([numHeads * headDim]) with the shared weight w.
inline void headNorm(Vec& x, const Vec& w, double eps) {
  if (w.empty()) return;
  for (size_t h = 0; h * w.size() < x.size(); ++h) {
    const Vec head(x.begin() + std::ptrdiff_t(h * w.size()), x.begin() + std::ptrdiff_t((h + 1) * w.size()));
    const Vec normed = rmsNorm(head, w, eps);
    std::copy(normed.begin(), normed.end(), x.begin() + std::ptrdiff_t(h * w.size()));
  }
}

// Causal self-attention over all positions; q/k/v already projected and rotated.
inline Mat attention(const Dims& c, const Mat& q, const Mat& k, const Mat& v) {
  const int d = c.headDim, group = c.numHeads / c.numKvHeads;
  const double scale = 1.0 / std::sqrt(double(d));
  Mat out(q.size(), Vec(size_t(c.numHeads) * size_t(d), 0.0));
  for (size_t t = 0; t < q.size(); ++t) {
    for (int h = 0; h < c.numHeads; ++h) {
      const size_t qo = size_t(h) * size_t(d), ko = size_t(h / group) * size_t(d);
      Vec scores(t + 1);
      double maxScore = -INFINITY;
      for (size_t j = 0; j <= t; ++j) {
        double s = 0;
        for (int i = 0; i < d; ++i) s += q[t][qo + size_t(i)] * k[j][ko + size_t(i)];
        scores[j] = s * scale;
        maxScore = std::max(maxScore, scores[j]);
      }
      double sum = 0;
      for (double& s : scores) sum += (s = std::exp(s - maxScore));
      for (size_t j = 0; j <= t; ++j)
        for (int i = 0; i < d; ++i) out[t][qo + size_t(i)] += scores[j] / sum * v[j][ko + size_t(i)];
    }
  }
  return out;
}

// One decoder layer over every position of `hidden` ([numTokens][hidden]), in place.
inline void runLayer(const Dims& c, const Layer& w, Mat& hidden) {
  const size_t n = hidden.size();
  Mat q(n), k(n), v(n);
  for (size_t t = 0; t < n; ++t) {
    const Vec x = rmsNorm(hidden[t], w.inputNorm, c.rmsNormEps);
    q[t] = linear(w.q, x, w.qBias);
    k[t] = linear(w.k, x, w.kBias);
    v[t] = linear(w.v, x, w.vBias);
    headNorm(q[t], w.qNorm, c.rmsNormEps);
    headNorm(k[t], w.kNorm, c.rmsNormEps);
    applyRope(q[t], c.numHeads, c.headDim, int(t), c.ropeInvFreq);
    applyRope(k[t], c.numKvHeads, c.headDim, int(t), c.ropeInvFreq);
  }
  const Mat attn = attention(c, q, k, v);
  for (size_t t = 0; t < n; ++t) {
    const Vec o = linear(w.o, attn[t]);
    for (size_t i = 0; i < o.size(); ++i) hidden[t][i] += o[i];
    const Vec x = rmsNorm(hidden[t], w.postAttnNorm, c.rmsNormEps);
    const Vec g = linear(w.gate, x), u = linear(w.up, x);
    Vec act(g.size());
    for (size_t i = 0; i < g.size(); ++i) act[i] = g[i] / (1.0 + std::exp(-g[i])) * u[i];  // SiLU(gate) * up
    const Vec down = linear(w.down, act);
    for (size_t i = 0; i < down.size(); ++i) hidden[t][i] += down[i];
  }
}

// After the last layer: final norm and lm_head, [numTokens * vocab], row-major.
inline std::vector<double> finalLogits(const Dims& c, const Vec& finalNorm, const Mat& lmHead, const Mat& hidden) {
  std::vector<double> logits;
  logits.reserve(hidden.size() * lmHead.size());
  for (const Vec& h : hidden) {
    const Vec l = linear(lmHead, rmsNorm(h, finalNorm, c.rmsNormEps));
    logits.insert(logits.end(), l.begin(), l.end());
  }
  return logits;
}

}  // namespace lwb::reference
