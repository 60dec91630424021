#include "engine/metrics/caching_metrics.h"

namespace lwb {

CachingMetrics::CachingMetrics(int64_t maxRecentRequests) : maxRecentRequests_(maxRecentRequests) {}

void CachingMetrics::observe(int64_t numRequests, int64_t numQueryTokens, int64_t numHitTokens) {
  if (numRequests <= 0) return;
  window_.push_back({numRequests, numQueryTokens, numHitTokens});
  requests_ += numRequests;
  queries_ += numQueryTokens;
  hits_ += numHitTokens;
  while (window_.size() > 1 && requests_ > maxRecentRequests_) {
    const Observation& old = window_.front();
    requests_ -= old.requests;
    queries_ -= old.queries;
    hits_ -= old.hits;
    window_.pop_front();
  }
}

void CachingMetrics::reset() {
  window_.clear();
  requests_ = queries_ = hits_ = 0;
}

double CachingMetrics::hitRate() const { return queries_ > 0 ? double(hits_) / double(queries_) : 0.0; }

}  // namespace lwb
