// lwb_cuda_measure_peaks: the ceilings bench_cuda reports ratios against, measured on
// the card at hand rather than taken from a datasheet.
#include <cstdio>
#include <exception>

#include "engine/exec/cuda/cuda_check.h"
#include "engine/exec/cuda/device_buffer.h"
#include "engine/exec/cuda/kernels.h"
#include "engine/exec/cuda/plugin_abi.h"

namespace lwb::cuda {
namespace {

class Timer {
 public:
  explicit Timer(cudaStream_t s) : stream_(s) {
    LWB_CUDA_CHECK(cudaEventCreate(&start_));
    LWB_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~Timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start() { LWB_CUDA_CHECK(cudaEventRecord(start_, stream_)); }
  double stopSeconds() {
    LWB_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    LWB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    LWB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms / 1e3;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// 2 GiB copied device to device, 10 times after 2 warm-ups; counts read + write.
double copyBandwidth(cudaStream_t s) {
  const size_t bytes = size_t(2) << 30;
  DeviceBuffer a(bytes), b(bytes);
  for (int i = 0; i < 2; ++i) LWB_CUDA_CHECK(cudaMemcpyAsync(b.as(), a.as(), bytes, cudaMemcpyDeviceToDevice, s));
  Timer t(s);
  t.start();
  for (int i = 0; i < 10; ++i) LWB_CUDA_CHECK(cudaMemcpyAsync(b.as(), a.as(), bytes, cudaMemcpyDeviceToDevice, s));
  return 2.0 * 10 * double(bytes) / t.stopSeconds() / 1e9;
}

// 8192^3 bf16 GEMM with fp32 accumulation on random data, 10 times after 3 warm-ups.
double gemmTflops(cudaStream_t s) {
  const int n = 8192;
  const size_t elems = size_t(n) * n;
  DeviceBuffer x(elems * 2), w(elems * 2), y(elems * 2);
  launchRandomFill(x.as(), LWB_CUDA_BF16, int64_t(elems), 1, 1.f, 0.f, s);
  launchRandomFill(w.as(), LWB_CUDA_BF16, int64_t(elems), 2, 1.f, 0.f, s);
  cublasHandle_t h = nullptr;
  LWB_CUBLAS_CHECK(cublasCreate(&h));
  double seconds = 0;
  try {
    LWB_CUBLAS_CHECK(cublasSetStream(h, s));
    const auto* xp = x.as<__nv_bfloat16>();
    const auto* wp = w.as<__nv_bfloat16>();
    for (int i = 0; i < 3; ++i) gemm<__nv_bfloat16>(h, xp, n, n, wp, n, y.as(), false);
    Timer t(s);
    t.start();
    for (int i = 0; i < 10; ++i) gemm<__nv_bfloat16>(h, xp, n, n, wp, n, y.as(), false);
    seconds = t.stopSeconds();
  } catch (...) {
    cublasDestroy(h);
    throw;
  }
  cublasDestroy(h);
  return 2.0 * 10 * double(n) * n * n / seconds / 1e12;
}

}  // namespace
}  // namespace lwb::cuda

extern "C" __attribute__((visibility("default"))) int lwb_cuda_measure_peaks(int deviceIndex, double* copyGBs,
                                                                              double* bf16Tflops, char* error,
                                                                              size_t errorSize) {
  cudaStream_t s = nullptr;
  try {
    LWB_CUDA_CHECK(cudaSetDevice(deviceIndex));
    LWB_CUDA_CHECK(cudaStreamCreate(&s));
    *copyGBs = lwb::cuda::copyBandwidth(s);
    *bf16Tflops = lwb::cuda::gemmTflops(s);
    cudaStreamDestroy(s);
    return 0;
  } catch (const std::exception& e) {
    if (error && errorSize) std::snprintf(error, errorSize, "%s", e.what());
  } catch (...) {
    if (error && errorSize) std::snprintf(error, errorSize, "unknown exception");
  }
  if (s) cudaStreamDestroy(s);
  return 1;
}
