// Paged attention for prompt chunks and decode tokens, and the flash-decoding combine.
//
// One block = one work item (query rows of one sequence) × one kv head (grid y). Its
// warps are (row in tile, q head of the kv group) pairs: warp w serves row w / group and
// head kvHead * group + w % group, so a GQA group shares every K/V tile the block loads.
// Keys are walked in tiles of 32 with an online softmax: lane j scores key j of the
// tile against the warp's query, then every lane accumulates its own head dims
// (d = i*32 + lane) over the tile's keys. K/V tiles sit in shared memory as fp32 with
// one float of padding per row, so lane j reading row j is conflict-free.
//
// Head dims that are a multiple of 8 but not of 32 (40, 80, 100 ...) run in the next
// instantiation up (D = 32 * DPL >= headDim): dims past headDim are zero in shared
// memory, so they add nothing to a score, and are never written out.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <string>

#include "engine/exec/cuda/cuda_check.h"
#include "engine/exec/cuda/device_math.cuh"
#include "engine/exec/cuda/kernels.h"

namespace lwb::cuda {
namespace {

constexpr int kKeysPerTile = 32;
constexpr int kMaxWarps = 32;  // per block: (rows in tile) x (q heads per kv head)

int paddedHeadDim(int headDim) { return (headDim + 31) / 32 * 32; }

template <typename T, int DPL>  // a.headDim <= D = 32 * DPL (dims per lane)
__global__ void attentionKernel(AttnArgs<T> a, const AttnWork* works, const int32_t* numWork, int rowsPerTile) {
  constexpr int D = 32 * DPL;
  const int hd = a.headDim;
  if (int(blockIdx.x) >= *numWork) return;  // uniform over the block
  const AttnWork w = works[blockIdx.x];
  const int kvHead = blockIdx.y, group = a.numHeads / a.numKvHeads;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int rowInTile = warp / group, head = kvHead * group + warp % group;
  const bool active = rowInTile < w.numRows;
  const int row = w.firstRow + rowInTile, pos = w.firstPos + rowInTile;
  // Keys past the tile's last row are never visible (causal).
  const int kvEnd = min(w.kvEnd, w.firstPos + w.numRows);

  extern __shared__ float smem[];
  float* sK = smem;                                // [32][D + 1]
  float* sV = sK + kKeysPerTile * (D + 1);         // [32][D + 1]
  float* sQ = sV + kKeysPerTile * (D + 1) + warp * D;  // this warp's query [D], pre-scaled
  const size_t qStride = size_t(a.numHeads) * hd;
  if (active)
    for (int d = lane; d < D; d += 32) sQ[d] = d < hd ? a.q[size_t(row) * qStride + size_t(head) * hd + d] * a.scale : 0.f;

  float m = -INFINITY, l = 0.f, acc[DPL];
#pragma unroll
  for (int i = 0; i < DPL; ++i) acc[i] = 0.f;
  const size_t kvStride = size_t(a.numKvHeads) * hd;

  // Loop bounds are uniform over the block, so every thread reaches each barrier.
  for (int t0 = w.kvBegin; t0 < kvEnd; t0 += kKeysPerTile) {
    __syncthreads();  // previous tile fully consumed (and sQ written, first time)
    for (int idx = threadIdx.x; idx < kKeysPerTile * D; idx += blockDim.x) {
      const int j = idx / D, d = idx % D, p = t0 + j;
      float kf = 0.f, vf = 0.f;
      if (p < kvEnd && d < hd) {
        const int block = a.blockTables[w.btOffset + p / a.blockSize];
        const size_t off = (size_t(block) * a.blockSize + p % a.blockSize) * kvStride + size_t(kvHead) * hd + d;
        kf = toFloat(a.kCache[off]);
        vf = toFloat(a.vCache[off]);
      }
      sK[j * (D + 1) + d] = kf;
      sV[j * (D + 1) + d] = vf;
    }
    __syncthreads();
    if (!active) continue;

    const int p = t0 + lane;
    const bool valid = p < kvEnd && p <= pos;
    float s = -INFINITY;
    if (valid) {
      s = 0.f;
      const float* k = sK + lane * (D + 1);
#pragma unroll 8
      for (int d = 0; d < D; ++d) s += sQ[d] * k[d];
    }
    const float tileMax = warpMax(s);
    if (tileMax == -INFINITY) continue;  // no visible key in this tile (warp-uniform)
    const float newM = fmaxf(m, tileMax);
    const float pj = valid ? expf(s - newM) : 0.f;
    const float corr = expf(m - newM);  // 0 on the first visible tile (m = -inf)
    l = l * corr + warpSum(pj);
#pragma unroll
    for (int i = 0; i < DPL; ++i) acc[i] *= corr;
    const int numKeys = min(kKeysPerTile, kvEnd - t0);
    for (int j = 0; j < numKeys; ++j) {
      const float pb = __shfl_sync(0xffffffffu, pj, j);
      const float* v = sV + j * (D + 1) + lane;
#pragma unroll
      for (int i = 0; i < DPL; ++i) acc[i] += pb * v[i * 32];
    }
    m = newM;
  }
  if (!active) return;

  if (w.partial < 0) {
    // l > 0: key position 0 <= pos is always visible to an unsplit row.
    const float inv = 1.f / l;
    T* out = a.out + size_t(row) * qStride + size_t(head) * hd;
#pragma unroll
    for (int i = 0; i < DPL; ++i)
      if (i * 32 + lane < hd) out[i * 32 + lane] = fromFloat<T>(acc[i] * inv);
  } else {
    const size_t slot = size_t(w.partial) * a.numHeads + head;
#pragma unroll
    for (int i = 0; i < DPL; ++i)
      if (i * 32 + lane < hd) a.partAcc[slot * hd + i * 32 + lane] = acc[i];
    if (lane == 0) {
      a.partMl[slot * 2] = m;
      a.partMl[slot * 2 + 1] = l;
    }
  }
}

// One block per (item, head), one thread per head dim.
template <typename T>
__global__ void combineKernel(AttnArgs<T> a, const CombineItem* items, const int32_t* numItems) {
  if (int(blockIdx.x) >= *numItems) return;
  const CombineItem it = items[blockIdx.x];
  const int head = blockIdx.y, d = threadIdx.x, D = a.headDim;
  float maxM = -INFINITY;
  for (int q = 0; q < it.numParts; ++q)
    maxM = fmaxf(maxM, a.partMl[(size_t(it.partBase + q) * a.numHeads + head) * 2]);
  float sum = 0.f, acc = 0.f;
  for (int q = 0; q < it.numParts; ++q) {
    const size_t slot = size_t(it.partBase + q) * a.numHeads + head;
    const float wgt = expf(a.partMl[slot * 2] - maxM);
    sum += a.partMl[slot * 2 + 1] * wgt;
    acc += a.partAcc[slot * D + d] * wgt;
  }
  a.out[size_t(it.row) * a.numHeads * D + size_t(head) * D + d] = fromFloat<T>(acc / sum);
}

// Raises the instantiation's dynamic shared memory limit, once per device, to the most
// any launch of it can ask for (32 warps, the cap launchAttention checks) or the
// device's opt-in maximum if that is lower. A launch needing more than the device
// allows is refused up front by attentionUnsupportedReason.
template <typename T, int DPL>
void optInSharedMemory() {
  static std::mutex mutex;
  static std::set<int> devicesDone;
  int device = 0;
  LWB_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  if (devicesDone.count(device)) return;
  int optinMax = 0;
  LWB_CUDA_CHECK(cudaDeviceGetAttribute(&optinMax, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const size_t most = std::min(attentionSharedBytes(32 * DPL, kMaxWarps), size_t(optinMax));
  LWB_CUDA_CHECK(cudaFuncSetAttribute(attentionKernel<T, DPL>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(most)));
  devicesDone.insert(device);
}

template <typename T, int DPL>
void launchFor(const AttnArgs<T>& a, const AttnWork* work, const int32_t* numWork, int gridWork, int rowsPerTile,
               cudaStream_t stream) {
  const int group = a.numHeads / a.numKvHeads, numWarps = rowsPerTile * group;
  const size_t shared = attentionSharedBytes(a.headDim, numWarps);
  if (shared > 48 * 1024) optInSharedMemory<T, DPL>();  // above 48 KiB needs the opt-in
  const dim3 grid(unsigned(gridWork), unsigned(a.numKvHeads));
  attentionKernel<T, DPL><<<grid, numWarps * 32, shared, stream>>>(a, work, numWork, rowsPerTile);
  LWB_CUDA_CHECK_LAUNCH("attention");
}

}  // namespace

std::string attentionUnsupportedReason(int headDim, int group, int maxWarps, int sharedOptinBytes) {
  if (headDim < 8 || headDim > 256 || headDim % 8 != 0)
    return "head_dim " + std::to_string(headDim) + " (the CUDA attention kernel takes multiples of 8 up to 256)";
  if (group < 1 || group > kMaxWarps)
    return std::to_string(group) + " query heads per kv head (the CUDA attention kernel takes at most " +
           std::to_string(kMaxWarps) + ")";
  const size_t need = attentionSharedBytes(headDim, std::max(maxWarps, group));
  if (sharedOptinBytes > 0 && need > size_t(sharedOptinBytes))
    return "head_dim " + std::to_string(headDim) + " with " + std::to_string(group) +
           " query heads per kv head needs " + std::to_string(need) + " B of shared memory per block, the device allows " +
           std::to_string(sharedOptinBytes);
  return "";
}

size_t attentionSharedBytes(int headDim, int numWarps) {
  const size_t d = size_t(paddedHeadDim(headDim));
  return sizeof(float) * (size_t(2) * kKeysPerTile * (d + 1) + size_t(numWarps) * d);
}

template <typename T>
void launchAttention(const AttnArgs<T>& a, const AttnWork* work, const int32_t* numWork, int gridWork,
                     int rowsPerTile, cudaStream_t stream) {
  if (gridWork <= 0) return;
  check(rowsPerTile * (a.numHeads / a.numKvHeads) <= kMaxWarps, "CUDA attention: more than 32 warps per block");
  check(a.headDim % 8 == 0, "CUDA attention: head_dim " + std::to_string(a.headDim) + " not a multiple of 8");
  switch (paddedHeadDim(a.headDim) / 32) {
    case 1: return launchFor<T, 1>(a, work, numWork, gridWork, rowsPerTile, stream);
    case 2: return launchFor<T, 2>(a, work, numWork, gridWork, rowsPerTile, stream);
    case 3: return launchFor<T, 3>(a, work, numWork, gridWork, rowsPerTile, stream);
    case 4: return launchFor<T, 4>(a, work, numWork, gridWork, rowsPerTile, stream);
    case 5: return launchFor<T, 5>(a, work, numWork, gridWork, rowsPerTile, stream);
    case 6: return launchFor<T, 6>(a, work, numWork, gridWork, rowsPerTile, stream);
    case 7: return launchFor<T, 7>(a, work, numWork, gridWork, rowsPerTile, stream);
    case 8: return launchFor<T, 8>(a, work, numWork, gridWork, rowsPerTile, stream);
    default: throw Error("CUDA attention: head_dim " + std::to_string(a.headDim) + " not supported");
  }
}

template <typename T>
void launchAttentionCombine(const AttnArgs<T>& a, const CombineItem* items, const int32_t* numItems, int gridItems,
                            cudaStream_t stream) {
  if (gridItems <= 0) return;
  const dim3 grid(unsigned(gridItems), unsigned(a.numHeads));
  combineKernel<T><<<grid, a.headDim, 0, stream>>>(a, items, numItems);
  LWB_CUDA_CHECK_LAUNCH("attention_combine");
}

template void launchAttention<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&, const AttnWork*, const int32_t*, int,
                                             int, cudaStream_t);
template void launchAttention<__half>(const AttnArgs<__half>&, const AttnWork*, const int32_t*, int, int,
                                      cudaStream_t);
template void launchAttentionCombine<__nv_bfloat16>(const AttnArgs<__nv_bfloat16>&, const CombineItem*,
                                                    const int32_t*, int, cudaStream_t);
template void launchAttentionCombine<__half>(const AttnArgs<__half>&, const CombineItem*, const int32_t*, int,
                                             cudaStream_t);

}  // namespace lwb::cuda
