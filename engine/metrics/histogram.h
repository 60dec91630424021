#pragma once
// A Prometheus-style histogram: fixed upper bounds ("le" buckets, cumulative when
// exported), plus count and sum. Buckets follow vLLM's choices for the latency metrics.
#include <cstdint>
#include <vector>

namespace lwb {

class Histogram {
 public:
  // Upper bounds, strictly increasing; an implicit +Inf bucket follows the last one.
  // Throws lwb::Error when the bounds are empty or not increasing.
  explicit Histogram(std::vector<double> upperBounds);

  void observe(double value);
  void clear();

  const std::vector<double>& upperBounds() const { return bounds_; }
  // Per-bucket (non-cumulative) counts: [bounds.size() + 1], the last is +Inf.
  const std::vector<uint64_t>& bucketCounts() const { return counts_; }
  std::vector<uint64_t> cumulativeCounts() const;
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }

  // vLLM's buckets (seconds) for vllm:time_to_first_token_seconds and
  // vllm:inter_token_latency_seconds.
  static std::vector<double> ttftBuckets();
  static std::vector<double> itlBuckets();
  // vllm:e2e_request_latency_seconds, request_queue/prefill/decode_time_seconds.
  static std::vector<double> requestLatencyBuckets();
  // vllm:iteration_tokens_total (tokens per engine step).
  static std::vector<double> iterationTokenBuckets();
  // vLLM's build_1_2_5_buckets: 1, 2, 5, 10, 20, 50, ... up to `max` (request token counts).
  static std::vector<double> oneTwoFiveBuckets(int max);

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace lwb
