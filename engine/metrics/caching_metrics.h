#pragma once
// The prefix-cache hit rate vLLM logs (CachingMetrics): hits / queries over the most
// recent requests, as opposed to the cumulative counters. Fed one observation per step
// (that step's admissions: requests, queried tokens, hit tokens); the oldest
// observations drop out once more than maxRecentRequests requests are covered, but the
// newest is always kept.
#include <cstdint>
#include <deque>

namespace lwb {

class CachingMetrics {
 public:
  static constexpr int64_t kDefaultMaxRecentRequests = 1000;  // vLLM's default
  explicit CachingMetrics(int64_t maxRecentRequests = kDefaultMaxRecentRequests);

  // Steps without lookups (numRequests 0) are ignored.
  void observe(int64_t numRequests, int64_t numQueryTokens, int64_t numHitTokens);
  void reset();

  double hitRate() const;  // 0 when nothing was queried
  int64_t numRequests() const { return requests_; }
  int64_t numQueryTokens() const { return queries_; }
  int64_t numHitTokens() const { return hits_; }

 private:
  struct Observation {
    int64_t requests, queries, hits;
  };
  int64_t maxRecentRequests_;
  std::deque<Observation> window_;
  int64_t requests_ = 0, queries_ = 0, hits_ = 0;
};

}  // namespace lwb
