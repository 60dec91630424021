#include "reference_llama.h"

#include <cmath>
#include <algorithm>
#include <cstring>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "engine/model/quant.h"

namespace lwb {
namespace {

using Vec = std::vector<double>;
using Mat = std::vector<Vec>;  // [rows][cols]

double elementAt(const TensorView& t, size_t i) {
  switch (t.dtype) {
    case DType::F32: {
      float f;
      std::memcpy(&f, static_cast<const char*>(t.data) + 4 * i, 4);
      return f;
    }
    case DType::F16: return f16ToFloat(static_cast<const uint16_t*>(t.data)[i]);
    case DType::BF16: return bf16ToFloat(static_cast<const uint16_t*>(t.data)[i]);
  }
  return 0;
}

// A Linear weight [out, in] (or embedding [vocab, hidden]) as doubles.
Mat toMatrix(const TensorView* t) {
  check(t && t->shape.size() == 2, "reference: expected a 2-D tensor");
  Mat m(size_t(t->shape[0]), Vec(size_t(t->shape[1])));
  if (t->isQuantized()) {  // a GGUF tensor in blocks: the dequantized weights, exactly
    const size_t rowBytes = ggmlRowBytes(t->blockType, t->shape[1]);
    std::vector<float> row(m.empty() ? 0 : m[0].size());
    for (size_t r = 0; r < m.size(); ++r) {
      dequantizeRow(t->blockType, static_cast<const uint8_t*>(t->data) + r * rowBytes, row.data(), int64_t(row.size()));
      std::copy(row.begin(), row.end(), m[r].begin());
    }
    return m;
  }
  for (size_t r = 0; r < m.size(); ++r)
    for (size_t c = 0; c < m[r].size(); ++c) m[r][c] = elementAt(*t, r * m[r].size() + c);
  return m;
}

Vec toVector(const TensorView* t) {
  check(t != nullptr, "reference: missing tensor");
  Vec v(size_t(t->shape[0]));
  for (size_t i = 0; i < v.size(); ++i) v[i] = elementAt(*t, i);
  return v;
}

// y = W x for W [out, in].
Vec linear(const Mat& w, const Vec& x) {
  Vec y(w.size(), 0.0);
  for (size_t o = 0; o < w.size(); ++o)
    for (size_t i = 0; i < x.size(); ++i) y[o] += w[o][i] * x[i];
  return y;
}

Vec rmsNorm(const Vec& x, const Vec& w, double eps) {
  double ss = 0;
  for (double v : x) ss += v * v;
  const double inv = 1.0 / std::sqrt(ss / double(x.size()) + eps);
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * inv * w[i];
  return y;
}

// rotate_half RoPE on every head of `x` ([numHeads * headDim]) at position `pos`.
void applyRope(Vec& x, int numHeads, int headDim, int pos, const std::vector<float>& invFreq) {
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

double silu(double x) { return x / (1.0 + std::exp(-x)); }

struct RefLayer {
  Vec inputNorm, postAttnNorm;
  Mat q, k, v, o, gate, up, down;
  Vec qBias, kBias, vBias, qNorm, kNorm;  // empty when the architecture has none
};

Vec optionalVector(const TensorView* t) { return t ? toVector(t) : Vec{}; }

RefLayer loadLayer(const LlamaLayerWeights& w) {
  return {toVector(w.inputNorm), toVector(w.postAttnNorm), toMatrix(w.q), toMatrix(w.k), toMatrix(w.v),
          toMatrix(w.o), toMatrix(w.gate), toMatrix(w.up), toMatrix(w.down),
          optionalVector(w.qBias), optionalVector(w.kBias), optionalVector(w.vBias),
          optionalVector(w.qNorm), optionalVector(w.kNorm)};
}

// y = W x + b (b may be empty).
Vec linear(const Mat& w, const Vec& x, const Vec& b) {
  Vec y = linear(w, x);
  for (size_t i = 0; i < b.size(); ++i) y[i] += b[i];
  return y;
}

// Qwen3: RMSNorm over each head of x ([numHeads * headDim]) with the shared weight w.
void headNorm(Vec& x, const Vec& w, double eps) {
  if (w.empty()) return;
  for (size_t h = 0; h * w.size() < x.size(); ++h) {
    const Vec head(x.begin() + std::ptrdiff_t(h * w.size()), x.begin() + std::ptrdiff_t((h + 1) * w.size()));
    const Vec normed = rmsNorm(head, w, eps);
    std::copy(normed.begin(), normed.end(), x.begin() + std::ptrdiff_t(h * w.size()));
  }
}

// Causal self-attention over all positions; q/k/v already projected and rotated.
Mat attention(const ModelConfig& c, const Mat& q, const Mat& k, const Mat& v) {
  const int d = c.headDim, group = c.numAttentionHeads / c.numKeyValueHeads;
  const double scale = 1.0 / std::sqrt(double(d));
  Mat out(q.size(), Vec(size_t(c.qSize()), 0.0));
  for (size_t t = 0; t < q.size(); ++t) {
    for (int h = 0; h < c.numAttentionHeads; ++h) {
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

void runLayer(const ModelConfig& c, const RefLayer& w, const std::vector<float>& invFreq, Mat& hidden) {
  const size_t n = hidden.size();
  Mat q(n), k(n), v(n);
  for (size_t t = 0; t < n; ++t) {
    const Vec x = rmsNorm(hidden[t], w.inputNorm, c.rmsNormEps);
    q[t] = linear(w.q, x, w.qBias);
    k[t] = linear(w.k, x, w.kBias);
    v[t] = linear(w.v, x, w.vBias);
    headNorm(q[t], w.qNorm, c.rmsNormEps);
    headNorm(k[t], w.kNorm, c.rmsNormEps);
    applyRope(q[t], c.numAttentionHeads, c.headDim, int(t), invFreq);
    applyRope(k[t], c.numKeyValueHeads, c.headDim, int(t), invFreq);
  }
  const Mat attn = attention(c, q, k, v);
  for (size_t t = 0; t < n; ++t) {
    const Vec o = linear(w.o, attn[t]);
    for (size_t i = 0; i < o.size(); ++i) hidden[t][i] += o[i];
    const Vec x = rmsNorm(hidden[t], w.postAttnNorm, c.rmsNormEps);
    const Vec g = linear(w.gate, x), u = linear(w.up, x);
    Vec act(g.size());
    for (size_t i = 0; i < g.size(); ++i) act[i] = silu(g[i]) * u[i];
    const Vec down = linear(w.down, act);
    for (size_t i = 0; i < down.size(); ++i) hidden[t][i] += down[i];
  }
}

}  // namespace

std::vector<double> referenceLogits(const Model& model, const std::vector<int>& tokens) {
  const ModelConfig& c = model.config;
  const std::vector<float> invFreq = ropeInvFreq(c);
  const Mat embed = toMatrix(model.llama.embedTokens);
  Mat hidden;
  for (int id : tokens) {
    check(id >= 0 && id < c.vocabSize, "reference: token id out of range");
    hidden.push_back(embed[size_t(id)]);
  }
  for (const LlamaLayerWeights& lw : model.llama.layers) runLayer(c, loadLayer(lw), invFreq, hidden);
  const Vec finalNorm = toVector(model.llama.finalNorm);
  const Mat lmHead = model.llama.lmHead == model.llama.embedTokens ? embed : toMatrix(model.llama.lmHead);
  std::vector<double> logits;
  logits.reserve(tokens.size() * size_t(c.vocabSize));
  for (const Vec& h : hidden) {
    const Vec l = linear(lmHead, rmsNorm(h, finalNorm, c.rmsNormEps));
    logits.insert(logits.end(), l.begin(), l.end());
  }
  return logits;
}

std::vector<double> referenceLastLogits(const Model& model, const std::vector<int>& tokens) {
  std::vector<double> all = referenceLogits(model, tokens);
  const size_t v = size_t(model.config.vocabSize);
  return std::vector<double>(all.end() - std::ptrdiff_t(v), all.end());
}

}  // namespace lwb
