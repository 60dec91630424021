#pragma once
// Summary statistics over a sample: mean, standard deviation and percentiles with
// linear interpolation between closest ranks (numpy.percentile's default "linear"),
// so that numbers match what `vllm bench serve` prints for the same sample.
#include <cstddef>
#include <vector>

namespace lwb {

// q in [0, 100]. Empty sample → 0 (vLLM reports 0 for metrics with no data).
// The sample need not be sorted.
double percentile(std::vector<double> values, double q);
double percentileSorted(const std::vector<double>& sorted, double q);

struct Summary {
  size_t count = 0;
  double mean = 0, std = 0;        // population std (numpy.std, ddof=0)
  double min = 0, max = 0;
  double median = 0, p90 = 0, p99 = 0;
};

// All fields 0 for an empty sample.
Summary summarize(std::vector<double> values);

}  // namespace lwb
