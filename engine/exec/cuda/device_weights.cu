#include "engine/exec/cuda/device_weights.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <type_traits>

#include "engine/exec/cuda/kernels.h"

namespace lwb::cuda {
namespace {

size_t dtypeBytes(int dtype) { return dtype == LWB_CUDA_F32 ? 4 : 2; }

void expectShape(const LwbCudaTensor& t, const std::string& name, int64_t rows, int64_t cols) {
  check(t.dtype == LWB_CUDA_F32 || t.dtype == LWB_CUDA_F16 || t.dtype == LWB_CUDA_BF16,
        "CUDA backend: tensor " + name + ": unknown dtype " + std::to_string(t.dtype));
  check(t.rows == rows && t.cols == cols, "CUDA backend: tensor " + name + ": expected shape [" +
                                              std::to_string(rows) + ", " + std::to_string(cols) + "], found [" +
                                              std::to_string(t.rows) + ", " + std::to_string(t.cols) + "]");
}

bool isTied(const LwbCudaModelDesc& d) { return d.lmHead.data != nullptr && d.lmHead.data == d.embedTokens.data; }

size_t align256(size_t n) { return (n + 255) / 256 * 256; }

// Places the tensors in one allocation: first pass counts, second pass assigns.
template <typename T>
struct Layout {
  char* base = nullptr;
  size_t used = 0;
  template <typename E>
  E* take(size_t numel) {
    E* p = reinterpret_cast<E*>(base ? base + used : nullptr);
    used += align256(numel * sizeof(E));
    return p;
  }
  void assign(const ModelShape& s, bool tied, DeviceWeights<T>& w) {
    const size_t h = size_t(s.hidden);
    w.embed = take<T>(size_t(s.vocab) * h);
    w.lmHead = tied ? w.embed : take<T>(size_t(s.vocab) * h);
    w.finalNorm = take<float>(h);
    w.layers.resize(size_t(s.numLayers));
    for (DeviceLayer<T>& l : w.layers) {
      l.qkv = take<T>(size_t(s.qkvSize()) * h);
      l.o = take<T>(h * size_t(s.qSize()));
      l.gateUp = take<T>(2 * size_t(s.inter) * h);
      l.down = take<T>(h * size_t(s.inter));
      l.inputNorm = take<float>(h);
      l.postAttnNorm = take<float>(h);
      if (s.qkvBias) l.qkvBias = take<float>(size_t(s.qkvSize()));
      if (s.qkNorm) l.qNorm = take<float>(size_t(s.headDim)), l.kNorm = take<float>(size_t(s.headDim));
    }
  }
};

// Copies one host tensor (any dtype) into `dst` as `dstDType`, or fills it at random.
class Uploader {
 public:
  Uploader(const LwbCudaModelDesc& desc, cudaStream_t stream) : desc_(desc), stream_(stream) {}

  void put(const LwbCudaTensor& t, void* dst, int dstDType, bool isNorm) {
    const int64_t n = t.rows * t.cols;
    ++tensorIndex_;
    if (!t.data) {
      launchRandomFill(dst, dstDType, n, desc_.randomSeed * 1000003ull + tensorIndex_, desc_.randomScale,
                       isNorm ? 1.f : 0.f, stream_);
      return;
    }
    const size_t bytes = size_t(n) * dtypeBytes(t.dtype);
    if (t.dtype == dstDType) {
      LWB_CUDA_CHECK(cudaMemcpyAsync(dst, t.data, bytes, cudaMemcpyHostToDevice, stream_));
      LWB_CUDA_CHECK(cudaStreamSynchronize(stream_));
      return;
    }
    if (staging_.bytes() < bytes) staging_.resize(bytes);
    LWB_CUDA_CHECK(cudaMemcpyAsync(staging_.as(), t.data, bytes, cudaMemcpyHostToDevice, stream_));
    launchConvert(staging_.as(), t.dtype, dst, dstDType, n, stream_);
    LWB_CUDA_CHECK(cudaStreamSynchronize(stream_));  // staging is reused by the next tensor
  }

 private:
  const LwbCudaModelDesc& desc_;
  cudaStream_t stream_;
  DeviceBuffer staging_;
  uint64_t tensorIndex_ = 0;
};

}  // namespace

ModelShape validateModelDesc(const LwbCudaModelDesc& d) {
  check(d.hiddenSize > 0 && d.intermediateSize > 0 && d.numAttentionHeads > 0 && d.numKeyValueHeads > 0 &&
            d.headDim > 0 && d.numHiddenLayers > 0 && d.vocabSize > 0 && d.maxPositionEmbeddings > 0,
        "CUDA backend: model sizes must be positive");
  check(d.numAttentionHeads % d.numKeyValueHeads == 0, "CUDA backend: num_attention_heads " +
                                                           std::to_string(d.numAttentionHeads) +
                                                           " not a multiple of num_key_value_heads " +
                                                           std::to_string(d.numKeyValueHeads));
  check(d.headDim % 2 == 0, "CUDA backend: head_dim " + std::to_string(d.headDim) + " is odd (RoPE rotates pairs)");
  check(d.ropeInvFreq != nullptr && d.layers != nullptr, "CUDA backend: incomplete model description");
  ModelShape s;
  s.hidden = d.hiddenSize;
  s.inter = d.intermediateSize;
  s.numHeads = d.numAttentionHeads;
  s.numKvHeads = d.numKeyValueHeads;
  s.headDim = d.headDim;
  s.numLayers = d.numHiddenLayers;
  s.vocab = d.vocabSize;
  s.maxPositions = d.maxPositionEmbeddings;
  s.eps = d.rmsNormEps;
  s.qkvBias = d.hasQkvBias != 0;
  s.qkNorm = d.hasQkNorm != 0;
  s.invFreq.assign(d.ropeInvFreq, d.ropeInvFreq + d.headDim / 2);

  const int64_t h = s.hidden;
  expectShape(d.embedTokens, "model.embed_tokens.weight", s.vocab, h);
  expectShape(d.lmHead, "lm_head.weight", s.vocab, h);
  expectShape(d.finalNorm, "model.norm.weight", h, 1);
  for (int i = 0; i < s.numLayers; ++i) {
    const LwbCudaLayer& l = d.layers[i];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    expectShape(l.inputNorm, p + "input_layernorm.weight", h, 1);
    expectShape(l.postAttnNorm, p + "post_attention_layernorm.weight", h, 1);
    expectShape(l.q, p + "self_attn.q_proj.weight", s.qSize(), h);
    expectShape(l.k, p + "self_attn.k_proj.weight", s.kvSize(), h);
    expectShape(l.v, p + "self_attn.v_proj.weight", s.kvSize(), h);
    expectShape(l.o, p + "self_attn.o_proj.weight", h, s.qSize());
    expectShape(l.gate, p + "mlp.gate_proj.weight", s.inter, h);
    expectShape(l.up, p + "mlp.up_proj.weight", s.inter, h);
    expectShape(l.down, p + "mlp.down_proj.weight", h, s.inter);
    if (s.qkvBias) {
      expectShape(l.qBias, p + "self_attn.q_proj.bias", s.qSize(), 1);
      expectShape(l.kBias, p + "self_attn.k_proj.bias", s.kvSize(), 1);
      expectShape(l.vBias, p + "self_attn.v_proj.bias", s.kvSize(), 1);
    }
    if (s.qkNorm) {
      expectShape(l.qNorm, p + "self_attn.q_norm.weight", s.headDim, 1);
      expectShape(l.kNorm, p + "self_attn.k_norm.weight", s.headDim, 1);
    }
  }
  return s;
}

int chooseActivationDType(const LwbCudaModelDesc& d) { return lwbCudaActivationDType(d); }

template <typename T>
void uploadWeights(const LwbCudaModelDesc& d, const ModelShape& s, DeviceWeights<T>& w, cudaStream_t stream) {
  const bool tied = isTied(d);
  Layout<T> sizing;
  sizing.assign(s, tied, w);
  w.storage.resize(sizing.used);
  Layout<T> placing;
  placing.base = w.storage.template as<char>();
  placing.assign(s, tied, w);

  const int t = std::is_same_v<T, __half> ? LWB_CUDA_F16 : LWB_CUDA_BF16;
  const size_t h = size_t(s.hidden), kv = size_t(s.kvSize()), q = size_t(s.qSize());
  Uploader up(d, stream);
  up.put(d.embedTokens, w.embed, t, false);
  if (!tied) up.put(d.lmHead, w.lmHead, t, false);
  up.put(d.finalNorm, w.finalNorm, LWB_CUDA_F32, true);
  for (int i = 0; i < s.numLayers; ++i) {
    const LwbCudaLayer& src = d.layers[i];
    DeviceLayer<T>& dst = w.layers[size_t(i)];
    up.put(src.q, dst.qkv, t, false);
    up.put(src.k, dst.qkv + q * h, t, false);
    up.put(src.v, dst.qkv + (q + kv) * h, t, false);
    up.put(src.o, dst.o, t, false);
    up.put(src.gate, dst.gateUp, t, false);
    up.put(src.up, dst.gateUp + size_t(s.inter) * h, t, false);
    up.put(src.down, dst.down, t, false);
    up.put(src.inputNorm, dst.inputNorm, LWB_CUDA_F32, true);
    up.put(src.postAttnNorm, dst.postAttnNorm, LWB_CUDA_F32, true);
    if (s.qkvBias) {
      up.put(src.qBias, dst.qkvBias, LWB_CUDA_F32, false);
      up.put(src.kBias, dst.qkvBias + q, LWB_CUDA_F32, false);
      up.put(src.vBias, dst.qkvBias + q + kv, LWB_CUDA_F32, false);
    }
    if (s.qkNorm) {
      up.put(src.qNorm, dst.qNorm, LWB_CUDA_F32, true);
      up.put(src.kNorm, dst.kNorm, LWB_CUDA_F32, true);
    }
  }
  LWB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template void uploadWeights<__nv_bfloat16>(const LwbCudaModelDesc&, const ModelShape&,
                                           DeviceWeights<__nv_bfloat16>&, cudaStream_t);
template void uploadWeights<__half>(const LwbCudaModelDesc&, const ModelShape&, DeviceWeights<__half>&,
                                    cudaStream_t);

}  // namespace lwb::cuda
