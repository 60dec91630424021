#pragma once
// A reader of the Prometheus text exposition format (0.0.4), as vLLM, SGLang and
// llama.cpp's server write it on /metrics: "# HELP" / "# TYPE" lines, samples
// `name{label="value",...} value [timestamp]`. Only what a scraper needs: samples with
// their labels, the declared types, and lookups that add up series across labels
// (several engines, finished_reason, ...).
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lwb::remote {

using Labels = std::map<std::string, std::string>;

struct PromSample {
  std::string name;  // "vllm:num_requests_running", "vllm:e2e_request_latency_seconds_bucket"
  Labels labels;
  double value = 0;
};

// A histogram summed over every label set except "le".
struct PromHistogram {
  std::vector<double> upperBounds;       // increasing, +Inf last when exported
  std::vector<double> cumulativeCounts;  // [upperBounds.size()]
  double count = 0, sum = 0;
};

class PromText {
 public:
  std::vector<PromSample> samples;
  std::map<std::string, std::string> types;  // family name → counter, gauge, histogram, ...

  bool has(const std::string& name) const;
  // Sum over every series of `name` whose labels include `match`; nullopt when none.
  std::optional<double> sum(const std::string& name, const Labels& match = {}) const;
  std::optional<double> max(const std::string& name) const;
  // `family`_bucket/_count/_sum; nullopt when the family has no buckets.
  std::optional<PromHistogram> histogram(const std::string& family) const;
  // Label sets of `name` (e.g. vllm:cache_config_info's labels are the configuration).
  std::vector<Labels> labelSets(const std::string& name) const;
};

// Throws lwb::Error "<source> line N: <what was wrong> in '<line>'" on malformed input.
PromText parsePrometheusText(const std::string& text, const std::string& source = "metrics");

// Prometheus's histogram_quantile(): the q-quantile (0..1) by linear interpolation
// inside the bucket it falls in; nullopt for an empty histogram.
std::optional<double> histogramQuantile(const PromHistogram& h, double q);

}  // namespace lwb::remote
