#include "engine/model/llama_weights.h"

namespace lwb {

namespace {

LlamaLayerWeights bindLayer(const WeightStore& store, const ModelConfig& c, int layer) {
  const std::string p = "model.layers." + std::to_string(layer) + ".";
  const int64_t hidden = c.hiddenSize, inter = c.intermediateSize, q = c.qSize(), kv = c.kvSize();
  LlamaLayerWeights w;
  w.inputNorm = &store.require(p + "input_layernorm.weight", {hidden});
  w.q = &store.require(p + "self_attn.q_proj.weight", {q, hidden});
  w.k = &store.require(p + "self_attn.k_proj.weight", {kv, hidden});
  w.v = &store.require(p + "self_attn.v_proj.weight", {kv, hidden});
  w.o = &store.require(p + "self_attn.o_proj.weight", {hidden, q});
  if (c.qkvBias) {
    w.qBias = &store.require(p + "self_attn.q_proj.bias", {q});
    w.kBias = &store.require(p + "self_attn.k_proj.bias", {kv});
    w.vBias = &store.require(p + "self_attn.v_proj.bias", {kv});
  }
  if (c.qkNorm) {
    w.qNorm = &store.require(p + "self_attn.q_norm.weight", {c.headDim});
    w.kNorm = &store.require(p + "self_attn.k_norm.weight", {c.headDim});
  }
  w.postAttnNorm = &store.require(p + "post_attention_layernorm.weight", {hidden});
  w.gate = &store.require(p + "mlp.gate_proj.weight", {inter, hidden});
  w.up = &store.require(p + "mlp.up_proj.weight", {inter, hidden});
  w.down = &store.require(p + "mlp.down_proj.weight", {hidden, inter});
  return w;
}

}  // namespace

LlamaWeights LlamaWeights::bind(const WeightStore& store, const ModelConfig& config) {
  const int64_t hidden = config.hiddenSize, vocab = config.vocabSize;
  LlamaWeights w;
  w.embedTokens = &store.require("model.embed_tokens.weight", {vocab, hidden});
  for (int i = 0; i < config.numHiddenLayers; ++i) w.layers.push_back(bindLayer(store, config, i));
  w.finalNorm = &store.require("model.norm.weight", {hidden});
  // Tied: Hugging Face uses the embedding even when a checkpoint also carries lm_head.weight.
  w.lmHead = config.tieWordEmbeddings ? w.embedTokens : &store.require("lm_head.weight", {vocab, hidden});
  return w;
}

}  // namespace lwb
