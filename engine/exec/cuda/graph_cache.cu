#include "engine/exec/cuda/graph_cache.h"

#include "engine/exec/cuda/cuda_check.h"

namespace lwb::cuda {

void GraphCache::run(int bucket, cudaStream_t stream, const std::function<void()>& launch) {
  auto it = byBucket_.find(bucket);
  if (it != byBucket_.end()) {
    LWB_CUDA_CHECK(cudaGraphLaunch(it->second, stream));
    return;
  }
  launch();
  cudaGraph_t graph = nullptr;
  LWB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    launch();
  } catch (...) {
    cudaStreamEndCapture(stream, &graph);
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  LWB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  LWB_CUDA_CHECK(status);
  byBucket_[bucket] = exec;
}

void GraphCache::clear() {
  for (auto& [bucket, exec] : byBucket_) cudaGraphExecDestroy(exec);
  byBucket_.clear();
}

}  // namespace lwb::cuda
