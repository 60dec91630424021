#include "reference_llama.h"

#include <algorithm>
#include <cstring>

#include "engine/common/error.h"
#include "engine/exec/testing/reference_forward.h"
#include "engine/model/model.h"
#include "engine/model/quant.h"

namespace lwb {
namespace {

using reference::Mat;
using reference::Vec;
using RefLayer = reference::Layer;

double elementAt(const TensorView& t, size_t i) {
  switch (t.dtype) {
    case DType::F32: {
      float f;
      std::memcpy(&f, static_cast<const char*>(t.data) + 4 * i, 4);
      return f;
    }
    case DType::F16: return f16ToFloat(static_cast<const uint16_t*>(t.data)[i]);
    case DType::BF16: return bf16ToFloat(static_cast<const uint16_t*>(t.data)[i]);
    case DType::F8E4M3: return fp8E4m3ToFloat(static_cast<const uint8_t*>(t.data)[i]);
    case DType::F8E5M2: return fp8E5m2ToFloat(static_cast<const uint8_t*>(t.data)[i]);
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

Vec optionalVector(const TensorView* t) { return t ? toVector(t) : Vec{}; }

RefLayer loadLayer(const LlamaLayerWeights& w) {
  return {toVector(w.inputNorm), toVector(w.postAttnNorm), toMatrix(w.q), toMatrix(w.k), toMatrix(w.v),
          toMatrix(w.o), toMatrix(w.gate), toMatrix(w.up), toMatrix(w.down),
          optionalVector(w.qBias), optionalVector(w.kBias), optionalVector(w.vBias),
          optionalVector(w.qNorm), optionalVector(w.kNorm)};
}

}  // namespace

std::vector<double> referenceLogits(const Model& model, const std::vector<int>& tokens) {
  const ModelConfig& c = model.config;
  const reference::Dims dims{c.numAttentionHeads, c.numKeyValueHeads, c.headDim, c.rmsNormEps, ropeInvFreq(c)};
  const Mat embed = toMatrix(model.llama.embedTokens);
  Mat hidden;
  for (int id : tokens) {
    check(id >= 0 && id < c.vocabSize, "reference: token id out of range");
    hidden.push_back(embed[size_t(id)]);
  }
  // One layer's weights as doubles at a time: a real model's would not fit all at once.
  for (const LlamaLayerWeights& lw : model.llama.layers) reference::runLayer(dims, loadLayer(lw), hidden);
  const Mat lmHead = model.llama.lmHead == model.llama.embedTokens ? embed : toMatrix(model.llama.lmHead);
  return reference::finalLogits(dims, toVector(model.llama.finalNorm), lmHead, hidden);
}

std::vector<double> referenceLastLogits(const Model& model, const std::vector<int>& tokens) {
  std::vector<double> all = referenceLogits(model, tokens);
  const size_t v = size_t(model.config.vocabSize);
  return std::vector<double>(all.end() - std::ptrdiff_t(v), all.end());
}

}  // namespace lwb
