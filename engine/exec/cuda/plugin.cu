// The plugin's exported C entry points (plugin_abi.h). Nothing else is visible outside
// liblwb_cuda.so (built with -fvisibility=hidden).
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "engine/exec/cuda/cuda_check.h"
#include "engine/exec/cuda/cuda_executor.h"
#include "engine/exec/cuda/plugin_abi.h"

#define LWB_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

void setMessage(char* out, size_t n, const std::string& text) {
  if (out && n) std::snprintf(out, n, "%s", text.c_str());
}

__global__ void probeKernel(int* out) { *out = 42; }

// Launches a trivial kernel: catches "no kernel image for this device" (an arch list
// without this GPU's) and a broken driver before any real work.
std::string tryKernel(int device) {
  if (cudaSetDevice(device) != cudaSuccess) return "cudaSetDevice failed";
  int* d = nullptr;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) return "cudaMalloc of 4 bytes failed";
  probeKernel<<<1, 1>>>(d);
  cudaError_t e = cudaGetLastError();
  int value = 0;
  if (e == cudaSuccess) e = cudaMemcpy(&value, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, device);
    return std::string("the CUDA plugin has no code for this GPU (") + p.name + ", sm_" + std::to_string(p.major) +
           std::to_string(p.minor) + "): rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(p.major) +
           std::to_string(p.minor);
  }
  if (e != cudaSuccess) return std::string("test kernel failed: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  return value == 42 ? "" : "test kernel wrote a wrong value";
}

int probe(int deviceIndex, char* message, size_t messageSize) {
  // The static runtime loads the driver library itself; look first to name it exactly.
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    const char* err = dlerror();
    setMessage(message, messageSize, std::string("libcuda.so.1 not found: no NVIDIA driver (") + (err ? err : "") + ")");
    return 0;
  }
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
    setMessage(message, messageSize, "no CUDA device");
    return 0;
  }
  if (e == cudaErrorInsufficientDriver) {
    setMessage(message, messageSize, "the NVIDIA driver is older than the CUDA runtime " +
                                         std::to_string(CUDART_VERSION / 1000) + "." +
                                         std::to_string(CUDART_VERSION % 1000 / 10) + " the plugin was built with");
    return 0;
  }
  if (e != cudaSuccess) {
    setMessage(message, messageSize, std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(e) + " (" +
                                         cudaGetErrorString(e) + ")");
    return 0;
  }
  if (deviceIndex < 0 || deviceIndex >= count) {
    setMessage(message, messageSize, "CUDA device index " + std::to_string(deviceIndex) + " out of range (" +
                                         std::to_string(count) + " devices)");
    return 0;
  }
  if (const std::string problem = tryKernel(deviceIndex); !problem.empty()) {
    setMessage(message, messageSize, problem);
    return 0;
  }
  return count;
}

}  // namespace

LWB_EXPORT int lwb_cuda_abi_version() { return LWB_CUDA_ABI_VERSION; }

LWB_EXPORT uint64_t lwb_cuda_layout_hash() { return lwbCudaLayoutHash(); }

// No exception may leave a C entry point (the caller cannot catch it across dlopen's
// RTLD_LOCAL boundary reliably, and a C caller not at all): each one catches everything.
LWB_EXPORT int lwb_cuda_probe(int deviceIndex, char* message, size_t messageSize) {
  try {
    return probe(deviceIndex, message, messageSize);
  } catch (const std::exception& e) {
    setMessage(message, messageSize, std::string("probing the CUDA device failed: ") + e.what());
  } catch (...) {
    setMessage(message, messageSize, "probing the CUDA device failed: unknown exception");
  }
  return 0;
}

LWB_EXPORT lwb::Executor* lwb_cuda_create_executor(const LwbCudaModelDesc* model, const LwbCudaOptions* options,
                                                   int* status, char* error, size_t errorSize) {
  int dummy = 0;
  int& st = status ? *status : dummy;
  st = LWB_CUDA_FAILED;
  try {
    if (!model || !options) throw lwb::Error("lwb_cuda_create_executor: null argument");
    lwb::Executor* e = lwb::cuda::createCudaExecutor(*model, *options).release();
    st = LWB_CUDA_OK;
    return e;
  } catch (const lwb::cuda::UnsupportedModel& e) {
    st = LWB_CUDA_UNSUPPORTED;
    setMessage(error, errorSize, e.what());
  } catch (const std::exception& e) {
    setMessage(error, errorSize, e.what());
  } catch (...) {
    setMessage(error, errorSize, "unknown exception");
  }
  return nullptr;
}

// Destructors are noexcept (~CudaExecutor checks no CUDA status): nothing can escape.
LWB_EXPORT void lwb_cuda_destroy_executor(lwb::Executor* executor) { delete executor; }
