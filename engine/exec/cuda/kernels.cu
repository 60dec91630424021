// Element-wise and row-wise kernels: embedding gather, fused residual add + RMSNorm,
// SwiGLU, RoPE + KV cache write, dtype conversion, random fill; and the cuBLAS GEMM.
#include <algorithm>
#include <type_traits>

#include "engine/exec/cuda/cuda_check.h"
#include "engine/exec/cuda/device_math.cuh"
#include "engine/exec/cuda/kernels.h"
#include "engine/exec/cuda/plugin_abi.h"

namespace lwb::cuda {
namespace {

constexpr int kRowThreads = 256;

// ---- embedding ------------------------------------------------------------------
template <typename T>
__global__ void embeddingKernel(const T* table, const int32_t* tokenIds, const int32_t* numRows, int hidden,
                                float* residual) {
  const int row = blockIdx.x;
  if (row >= *numRows) return;
  const T* src = table + size_t(tokenIds[row]) * hidden;
  float* dst = residual + size_t(row) * hidden;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) dst[i] = toFloat(src[i]);
}

// ---- residual add + RMSNorm -----------------------------------------------------
template <typename T>
__global__ void addRmsNormKernel(float* residual, const T* delta, const float* weight, const int32_t* rowMap,
                                 const int32_t* numRows, int hidden, float eps, bool writeResidual, T* out) {
  const int o = blockIdx.x;
  if (o >= *numRows) return;
  const int r = rowMap ? rowMap[o] : o;
  float* res = residual + size_t(r) * hidden;
  const T* del = delta ? delta + size_t(r) * hidden : nullptr;
  float ss = 0.f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float v = res[i] + (del ? toFloat(del[i]) : 0.f);
    if (writeResidual) res[i] = v;
    ss += v * v;
  }
  const float inv = 1.f / sqrtf(blockSum(ss) / float(hidden) + eps);
  T* dst = out + size_t(o) * hidden;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    // Same thread, same index as above: sees its own residual write.
    const float v = writeResidual ? res[i] : res[i] + (del ? toFloat(del[i]) : 0.f);
    dst[i] = fromFloat<T>(v * inv * weight[i]);
  }
}

// ---- SwiGLU ---------------------------------------------------------------------
template <typename T>
__global__ void swiGluKernel(const T* gateUp, const int32_t* numRows, int inter, T* out) {
  const int row = blockIdx.x;
  if (row >= *numRows) return;
  const T* g = gateUp + size_t(row) * 2 * inter;
  T* dst = out + size_t(row) * inter;
  for (int i = threadIdx.x; i < inter; i += blockDim.x) {
    const float gate = toFloat(g[i]), up = toFloat(g[inter + i]);
    dst[i] = fromFloat<T>(gate / (1.f + expf(-gate)) * up);
  }
}

// ---- q/k/v finishing: bias, per-head RMSNorm, RoPE, KV cache write ----------------
// One block per row, one warp per head (q heads, then k heads): a lane holds the pairs
// (i, i + half) for i = lane, lane + 32, ... The per-head RMSNorm needs the whole head's
// sum of squares first: each lane sums its elements, a butterfly warpSum adds the lanes.
// The angle is float(pos) * invFreq rounded to float, as Hugging Face and the CPU
// executor compute it (at long positions that rounding moves the angle by far more than
// float's cos/sin error); cos and sin of it are then taken in double.
template <typename T>
__device__ float headValue(const T* src, const float* bias, int i) {
  return bias ? toFloat(src[i]) + bias[i] : toFloat(src[i]);
}

template <typename T>
__global__ void ropeCacheKernel(const T* qkv, const int32_t* positions, const int32_t* slots,
                                const int32_t* numRows, RopeShape s, float* qOut, T* kCache, T* vCache) {
  const int row = blockIdx.x;
  if (row >= *numRows) return;
  const int d = s.headDim, half = d / 2, qSize = s.numHeads * d, kvSize = s.numKvHeads * d;
  const int lane = threadIdx.x % 32, numWarps = blockDim.x / 32;
  const T* src = qkv + size_t(row) * (qSize + 2 * kvSize);
  const float pos = float(positions[row]);
  const int slot = slots[row];
  for (int h = threadIdx.x / 32; h < s.numHeads + s.numKvHeads; h += numWarps) {  // warp-uniform
    const bool isQ = h < s.numHeads;
    if (!isQ && slot < 0) continue;
    const T* head = src + h * d;
    const float* bias = s.bias ? s.bias + h * d : nullptr;
    const float* norm = isQ ? s.qNorm : s.kNorm;
    float inv = 1.f;
    if (norm) {
      float ss = 0.f;
      for (int i = lane; i < d; i += 32) {
        const float x = headValue(head, bias, i);
        ss += x * x;
      }
      inv = 1.f / sqrtf(warpSum(ss) / float(d) + s.eps);
    }
    for (int i = lane; i < half; i += 32) {
      double sn, cs;
      const float angle = __fmul_rn(pos, s.invFreq[i]);  // no contraction into an FMA
      sincos(double(angle), &sn, &cs);
      const float c = float(cs), sv = float(sn);
      float a = headValue(head, bias, i), b = headValue(head, bias, i + half);
      if (norm) a = a * inv * norm[i], b = b * inv * norm[i + half];
      const float ra = a * c - b * sv, rb = b * c + a * sv;
      if (isQ) {
        float* q = qOut + size_t(row) * qSize + h * d;
        q[i] = ra;
        q[i + half] = rb;
      } else {
        T* k = kCache + size_t(slot) * kvSize + (h - s.numHeads) * d;
        k[i] = fromFloat<T>(ra);
        k[i + half] = fromFloat<T>(rb);
      }
    }
  }
  if (slot < 0) return;
  const T* v = src + qSize + kvSize;
  const float* vBias = s.bias ? s.bias + qSize + kvSize : nullptr;
  T* vDst = vCache + size_t(slot) * kvSize;
  for (int i = threadIdx.x; i < kvSize; i += blockDim.x) vDst[i] = vBias ? fromFloat<T>(toFloat(v[i]) + vBias[i]) : v[i];
}

// ---- conversion and random fill -------------------------------------------------
__device__ float loadAs(const void* p, int dtype, int64_t i) {
  if (dtype == LWB_CUDA_F32) return static_cast<const float*>(p)[i];
  if (dtype == LWB_CUDA_F16) return __half2float(static_cast<const __half*>(p)[i]);
  return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
}

__device__ void storeAs(void* p, int dtype, int64_t i, float v) {
  if (dtype == LWB_CUDA_F32) static_cast<float*>(p)[i] = v;
  else if (dtype == LWB_CUDA_F16) static_cast<__half*>(p)[i] = __float2half_rn(v);
  else static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v);
}

__global__ void convertKernel(const void* src, int srcDType, void* dst, int dstDType, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    storeAs(dst, dstDType, i, loadAs(src, srcDType, i));
}

__device__ uint64_t splitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void randomFillKernel(void* dst, int dstDType, int64_t n, uint64_t seed, float scale, float offset) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const uint64_t h = splitMix64(seed ^ splitMix64(uint64_t(i)));
    const float u = float(h >> 40) * (1.0f / 16777216.0f) * 2.f - 1.f;  // [-1, 1)
    storeAs(dst, dstDType, i, offset + scale * u);
  }
}

int gridFor(int64_t n) { return int(std::min<int64_t>((n + 255) / 256, 65536)); }

}  // namespace

template <typename T>
void launchEmbedding(const T* table, const int32_t* tokenIds, const int32_t* numRows, int capRows, int hidden,
                     float* residual, cudaStream_t stream) {
  if (capRows <= 0) return;
  embeddingKernel<T><<<capRows, kRowThreads, 0, stream>>>(table, tokenIds, numRows, hidden, residual);
  LWB_CUDA_CHECK_LAUNCH("embedding");
}

template <typename T>
void launchAddRmsNorm(float* residual, const T* delta, const float* weight, const int32_t* rowMap,
                      const int32_t* numRows, int capRows, int hidden, float eps, bool writeResidual, T* out,
                      cudaStream_t stream) {
  if (capRows <= 0) return;
  addRmsNormKernel<T><<<capRows, kRowThreads, 0, stream>>>(residual, delta, weight, rowMap, numRows, hidden, eps,
                                                           writeResidual, out);
  LWB_CUDA_CHECK_LAUNCH("add_rmsnorm");
}

template <typename T>
void launchSwiGlu(const T* gateUp, const int32_t* numRows, int capRows, int inter, T* out, cudaStream_t stream) {
  if (capRows <= 0) return;
  swiGluKernel<T><<<capRows, kRowThreads, 0, stream>>>(gateUp, numRows, inter, out);
  LWB_CUDA_CHECK_LAUNCH("swiglu");
}

template <typename T>
void launchRopeCache(const T* qkv, const int32_t* positions, const int32_t* slots, const int32_t* numRows,
                     int capRows, const RopeShape& shape, float* qOut, T* kCache, T* vCache, cudaStream_t stream) {
  if (capRows <= 0) return;
  ropeCacheKernel<T><<<capRows, 128, 0, stream>>>(qkv, positions, slots, numRows, shape, qOut, kCache, vCache);
  LWB_CUDA_CHECK_LAUNCH("rope_cache");
}

void launchConvert(const void* src, int srcDType, void* dst, int dstDType, int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  convertKernel<<<gridFor(n), 256, 0, stream>>>(src, srcDType, dst, dstDType, n);
  LWB_CUDA_CHECK_LAUNCH("convert");
}

void launchRandomFill(void* dst, int dstDType, int64_t n, uint64_t seed, float scale, float offset,
                      cudaStream_t stream) {
  if (n <= 0) return;
  randomFillKernel<<<gridFor(n), 256, 0, stream>>>(dst, dstDType, n, seed, scale, offset);
  LWB_CUDA_CHECK_LAUNCH("random_fill");
}

void poison(void* dst, size_t bytes, cudaStream_t stream) { LWB_CUDA_CHECK(cudaMemsetAsync(dst, 0xff, bytes, stream)); }

template <typename T>
void gemm(cublasHandle_t handle, const T* x, int rows, int k, const T* w, int n, void* y, bool yF32) {
  if (rows <= 0) return;
  // Column-major view: y^T [n, rows] = (w^T)^T [n, k] · x^T [k, rows]; w as stored is
  // the column-major [k, n] matrix w^T, hence OP_T on it.
  const cudaDataType_t t = std::is_same_v<T, __half> ? CUDA_R_16F : CUDA_R_16BF;
  const float alpha = 1.f, beta = 0.f;
  LWB_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, rows, k, &alpha, w, t, k, x, t, k, &beta, y,
                                yF32 ? CUDA_R_32F : t, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

#define LWB_INSTANTIATE(T)                                                                                    \
  template void launchEmbedding<T>(const T*, const int32_t*, const int32_t*, int, int, float*, cudaStream_t); \
  template void launchAddRmsNorm<T>(float*, const T*, const float*, const int32_t*, const int32_t*, int, int,  \
                                    float, bool, T*, cudaStream_t);                                          \
  template void launchSwiGlu<T>(const T*, const int32_t*, int, int, T*, cudaStream_t);                        \
  template void launchRopeCache<T>(const T*, const int32_t*, const int32_t*, const int32_t*, int,             \
                                   const RopeShape&, float*, T*, T*, cudaStream_t);                           \
  template void gemm<T>(cublasHandle_t, const T*, int, int, const T*, int, void*, bool);
LWB_INSTANTIATE(__nv_bfloat16)
LWB_INSTANTIATE(__half)
#undef LWB_INSTANTIATE

}  // namespace lwb::cuda
