// lwb_cuda_test_kernel: runs ONE kernel on host data for tst_cuda_kernels, which
// compares it with a CPU computation. Float inputs are converted to the activation
// type T where the executor feeds T; every output buffer is poisoned with NaN first, so
// an element the kernel forgot to write fails the comparison.
//
// Per kernel (rows = dims[0] unless said otherwise; int inputs are int32):
//   embedding:   dims {rows, vocab, hidden}; in {table f[vocab*hidden], ids i[rows]};
//                out {residual f[rows*hidden]}
//   add_rmsnorm: dims {rows, hidden, hasDelta, numOut}; scalars {eps}; in {residual f,
//                delta f (T), weight f[hidden], rowMap i[numOut] (numOut > 0: gather,
//                residual not written)}; out {normed f[(numOut or rows)*hidden],
//                residual f[rows*hidden]}
//   swiglu:      dims {rows, inter}; in {gateUp f[rows*2*inter] (T)}; out {act f[rows*inter]}
//   rope_cache:  dims {rows, heads, kvHeads, headDim, numSlots}; scalars {eps}; in {qkv f
//                (T), positions i, slots i, invFreq f[headDim/2], bias f[qkvSize] or null
//                (Qwen2), qNorm f[headDim] or null, kNorm f[headDim] (Qwen3, with qNorm)};
//                out {q f[rows*heads*headDim], kCache f[numSlots*kvSize], vCache f}
//                (unwritten slots stay NaN)
//   attention:   dims {heads, kvHeads, headDim, blockSize, numBlocks, numSeqs,
//                maxBlocksPerSeq}; scalars {partitionSize (0: 512), rowsPerTile (0: auto)};
//                in {q f[rows*heads*headDim], kCache f (T), vCache f (T), seqs i[numSeqs*2]
//                (numCachedTokens, numTokens), blockTables i[numSeqs*maxBlocksPerSeq]};
//                out {attn f[rows*heads*headDim]}; rows = sum of numTokens
//   gemm:        dims {rows, k, n, f32Out}; in {x f[rows*k] (T), w f[n*k] (T)}; out {y f[rows*n]}
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/exec/cuda/batch_plan.h"
#include "engine/exec/cuda/cuda_check.h"
#include "engine/exec/cuda/device_buffer.h"
#include "engine/exec/cuda/kernels.h"
#include "engine/exec/cuda/plugin_abi.h"

namespace lwb::cuda {
namespace {

template <typename T>
constexpr int dtypeOf() { return std::is_same_v<T, __half> ? LWB_CUDA_F16 : LWB_CUDA_BF16; }

struct Session {
  cudaStream_t stream = nullptr;
  std::vector<DeviceBuffer> buffers;
  Session() { LWB_CUDA_CHECK(cudaStreamCreate(&stream)); }
  ~Session() {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
  }
  void* alloc(size_t bytes) {
    buffers.emplace_back(std::max<size_t>(bytes, 16));
    poison(buffers.back().as(), buffers.back().bytes(), stream);
    return buffers.back().as();
  }
  // Host floats → device `dtype`.
  void* upload(const void* host, int64_t n, int dtype) {
    void* f = alloc(size_t(n) * 4);
    LWB_CUDA_CHECK(cudaMemcpyAsync(f, host, size_t(n) * 4, cudaMemcpyHostToDevice, stream));
    if (dtype == LWB_CUDA_F32) return f;
    void* t = alloc(size_t(n) * 2);
    launchConvert(f, LWB_CUDA_F32, t, dtype, n, stream);
    return t;
  }
  int32_t* uploadInts(const void* host, int64_t n) {
    void* d = alloc(size_t(n) * 4);
    LWB_CUDA_CHECK(cudaMemcpyAsync(d, host, size_t(n) * 4, cudaMemcpyHostToDevice, stream));
    return static_cast<int32_t*>(d);
  }
  int32_t* deviceInt(int value) { return uploadInts(&value, 1); }
  // Device `dtype` → host floats.
  void download(const void* dev, int64_t n, int dtype, float* host) {
    const void* f = dev;
    if (dtype != LWB_CUDA_F32) {
      void* tmp = alloc(size_t(n) * 4);
      launchConvert(dev, dtype, tmp, LWB_CUDA_F32, n, stream);
      f = tmp;
    }
    LWB_CUDA_CHECK(cudaMemcpyAsync(host, f, size_t(n) * 4, cudaMemcpyDeviceToHost, stream));
    LWB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
};

template <typename T>
void testAttention(const LwbCudaKernelTest& t, Session& s) {
  const int heads = int(t.dims[0]), kvHeads = int(t.dims[1]), d = int(t.dims[2]), bs = int(t.dims[3]);
  const int numBlocks = int(t.dims[4]), numSeqs = int(t.dims[5]), maxBlocks = int(t.dims[6]);
  const auto* seqInfo = static_cast<const int32_t*>(t.in[3]);
  const auto* tables = static_cast<const int32_t*>(t.in[4]);
  ForwardBatch batch;
  for (int i = 0; i < numSeqs; ++i) {
    SeqSlice slice;
    slice.requestId = i;
    slice.firstRow = batch.numRows();
    slice.numCachedTokens = seqInfo[2 * i];
    slice.numTokens = seqInfo[2 * i + 1];
    slice.blockTable.assign(tables + size_t(i) * maxBlocks, tables + size_t(i + 1) * maxBlocks);
    batch.tokenIds.resize(batch.tokenIds.size() + size_t(slice.numTokens), 0);
    batch.seqs.push_back(slice);
  }
  const int rows = batch.numRows(), group = heads / kvHeads;
  PlanLimits lim{bs, numBlocks, maxBlocks * bs, 1, t.scalars[1] > 0 ? int(t.scalars[1]) : std::max(1, 16 / group),
                 t.scalars[0] > 0 ? int(t.scalars[0]) : 512};
  const BatchPlan plan = planBatch(batch, lim);
  const MetaLayout layout = MetaLayout::withCapacities(rows, 1, int(plan.blockTables.size()), int(plan.single.size()),
                                                       int(plan.tiles.size()), int(plan.combine.size()));
  std::vector<int32_t> meta(size_t(layout.totalInts));
  writeMeta(plan, layout, rows, 0, meta.data());
  const int32_t* m = s.uploadInts(meta.data(), layout.totalInts);

  const int64_t qSize = int64_t(heads) * d, cacheN = int64_t(numBlocks) * bs * kvHeads * d;
  const int partials = std::max(plan.numPartials, 1);
  AttnArgs<T> a{static_cast<const float*>(s.upload(t.in[0], rows * qSize, LWB_CUDA_F32)),
                static_cast<const T*>(s.upload(t.in[1], cacheN, dtypeOf<T>())),
                static_cast<const T*>(s.upload(t.in[2], cacheN, dtypeOf<T>())),
                m + layout.blockTables,
                static_cast<T*>(s.alloc(size_t(rows * qSize) * sizeof(T))),
                static_cast<float*>(s.alloc(size_t(partials) * heads * d * 4)),
                static_cast<float*>(s.alloc(size_t(partials) * heads * 2 * 4)),
                heads, kvHeads, d, bs, 1.f / std::sqrt(float(d))};
  launchAttention<T>(a, reinterpret_cast<const AttnWork*>(m + layout.single), m + 1, int(plan.single.size()), 1,
                     s.stream);
  launchAttention<T>(a, reinterpret_cast<const AttnWork*>(m + layout.tiles), m + 2, int(plan.tiles.size()),
                     lim.rowsPerTile, s.stream);
  launchAttentionCombine<T>(a, reinterpret_cast<const CombineItem*>(m + layout.combine), m + 3,
                            int(plan.combine.size()), s.stream);
  s.download(a.out, rows * qSize, dtypeOf<T>(), t.out[0]);
}

template <typename T>
void runTest(const LwbCudaKernelTest& t, Session& s) {
  const std::string k = t.kernel ? t.kernel : "";
  const int dt = dtypeOf<T>();
  const int rows = int(t.dims[0]);
  if (k == "embedding") {
    const int vocab = int(t.dims[1]), hidden = int(t.dims[2]);
    const T* table = static_cast<const T*>(s.upload(t.in[0], int64_t(vocab) * hidden, dt));
    float* res = static_cast<float*>(s.alloc(size_t(rows) * hidden * 4));
    launchEmbedding<T>(table, s.uploadInts(t.in[1], rows), s.deviceInt(rows), rows, hidden, res, s.stream);
    s.download(res, int64_t(rows) * hidden, LWB_CUDA_F32, t.out[0]);
  } else if (k == "add_rmsnorm") {
    const int hidden = int(t.dims[1]), numOut = int(t.dims[3]), outRows = numOut > 0 ? numOut : rows;
    float* res = static_cast<float*>(s.upload(t.in[0], int64_t(rows) * hidden, LWB_CUDA_F32));
    const T* delta = t.dims[2] ? static_cast<const T*>(s.upload(t.in[1], int64_t(rows) * hidden, dt)) : nullptr;
    const float* w = static_cast<const float*>(s.upload(t.in[2], hidden, LWB_CUDA_F32));
    const int32_t* map = numOut > 0 ? s.uploadInts(t.in[3], numOut) : nullptr;
    T* out = static_cast<T*>(s.alloc(size_t(outRows) * hidden * sizeof(T)));
    launchAddRmsNorm<T>(res, delta, w, map, s.deviceInt(outRows), outRows, hidden, float(t.scalars[0]),
                        numOut == 0, out, s.stream);
    s.download(out, int64_t(outRows) * hidden, dt, t.out[0]);
    s.download(res, int64_t(rows) * hidden, LWB_CUDA_F32, t.out[1]);
  } else if (k == "swiglu") {
    const int inter = int(t.dims[1]);
    const T* gu = static_cast<const T*>(s.upload(t.in[0], int64_t(rows) * 2 * inter, dt));
    T* out = static_cast<T*>(s.alloc(size_t(rows) * inter * sizeof(T)));
    launchSwiGlu<T>(gu, s.deviceInt(rows), rows, inter, out, s.stream);
    s.download(out, int64_t(rows) * inter, dt, t.out[0]);
  } else if (k == "rope_cache") {
    const int heads = int(t.dims[1]), kvHeads = int(t.dims[2]), d = int(t.dims[3]), slots = int(t.dims[4]);
    const int64_t qkvSize = int64_t(heads + 2 * kvHeads) * d, kvSize = int64_t(kvHeads) * d;
    const T* qkv = static_cast<const T*>(s.upload(t.in[0], rows * qkvSize, dt));
    auto floats = [&](int i, int64_t n) {
      return t.in[i] ? static_cast<const float*>(s.upload(t.in[i], n, LWB_CUDA_F32)) : nullptr;
    };
    const RopeShape shape{heads, kvHeads, d, floats(3, d / 2), floats(4, qkvSize), floats(5, d), floats(6, d),
                          float(t.scalars[0])};
    float* q = static_cast<float*>(s.alloc(size_t(rows) * heads * d * 4));
    T* kc = static_cast<T*>(s.alloc(size_t(slots * kvSize) * sizeof(T)));
    T* vc = static_cast<T*>(s.alloc(size_t(slots * kvSize) * sizeof(T)));
    launchRopeCache<T>(qkv, s.uploadInts(t.in[1], rows), s.uploadInts(t.in[2], rows), s.deviceInt(rows), rows,
                       shape, q, kc, vc, s.stream);
    s.download(q, int64_t(rows) * heads * d, LWB_CUDA_F32, t.out[0]);
    s.download(kc, slots * kvSize, dt, t.out[1]);
    s.download(vc, slots * kvSize, dt, t.out[2]);
  } else if (k == "attention") {
    testAttention<T>(t, s);
  } else if (k == "gemm") {
    const int kk = int(t.dims[1]), n = int(t.dims[2]);
    const bool f32 = t.dims[3] != 0;
    cublasHandle_t h = nullptr;
    LWB_CUBLAS_CHECK(cublasCreate(&h));
    try {
      LWB_CUBLAS_CHECK(cublasSetStream(h, s.stream));
      const T* x = static_cast<const T*>(s.upload(t.in[0], int64_t(rows) * kk, dt));
      const T* w = static_cast<const T*>(s.upload(t.in[1], int64_t(n) * kk, dt));
      void* y = s.alloc(size_t(rows) * n * (f32 ? 4 : sizeof(T)));
      gemm<T>(h, x, rows, kk, w, n, y, f32);
      s.download(y, int64_t(rows) * n, f32 ? LWB_CUDA_F32 : dt, t.out[0]);
    } catch (...) {
      cublasDestroy(h);
      throw;
    }
    cublasDestroy(h);
  } else {
    throw Error("lwb_cuda_test_kernel: unknown kernel '" + k + "'");
  }
}

}  // namespace
}  // namespace lwb::cuda

extern "C" __attribute__((visibility("default"))) int lwb_cuda_test_kernel(const LwbCudaKernelTest* test,
                                                                            char* error, size_t errorSize) {
  try {
    if (!test) throw lwb::Error("lwb_cuda_test_kernel: null test");
    lwb::cuda::Session session;
    if (test->dtype == LWB_CUDA_F16) lwb::cuda::runTest<__half>(*test, session);
    else lwb::cuda::runTest<__nv_bfloat16>(*test, session);
    return 0;
  } catch (const std::exception& e) {
    if (error && errorSize) std::snprintf(error, errorSize, "%s", e.what());
  } catch (...) {
    if (error && errorSize) std::snprintf(error, errorSize, "unknown exception");
  }
  return 1;
}
