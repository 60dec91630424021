#pragma once
// CUDA graphs of decode-only forwards, one per batch-size bucket: the first batch of a
// bucket runs eagerly (which also warms cuBLAS and kernel attributes outside any
// capture), then the same launches are captured; later batches of that bucket replay
// the graph. A graph keeps the device addresses it was captured with: clear() whenever
// a buffer it uses moves (the KV pool, the activation buffers).
#include <cuda_runtime.h>

#include <functional>
#include <map>

namespace lwb::cuda {

class GraphCache {
 public:
  GraphCache() = default;
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;
  ~GraphCache() { clear(); }

  // Replays `bucket`'s graph on `stream`; the first time, runs `launch` eagerly, then
  // captures a second run of it as that graph.
  void run(int bucket, cudaStream_t stream, const std::function<void()>& launch);
  void clear();

 private:
  std::map<int, cudaGraphExec_t> byBucket_;
};

}  // namespace lwb::cuda
