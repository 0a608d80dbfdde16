// Summary statistics as vLLM's benchmark_serving computes them with numpy: np.mean, np.median,
// np.std (population, ddof = 0) and np.percentile with its default "linear" method: for q in
// [0, 100] over n sorted values v, the rank is h = q/100 x (n - 1) and the result
// v[floor(h)] + (h - floor(h)) x (v[floor(h) + 1] - v[floor(h)]).
#pragma once

#include <cstdint>
#include <vector>

namespace scoville::serving {

// Requires a non-empty `values` and 0 <= q <= 100.
double percentile(std::vector<double> values, double q);

struct Distribution {
  int64_t count = 0;
  // All zero for an empty sample, as vLLM reports them (`np.mean(x or 0)`).
  double mean = 0.0;
  double median = 0.0;
  double std = 0.0;
  double p90 = 0.0;
  double p95 = 0.0;
  double p99 = 0.0;
};

Distribution summarize(std::vector<double> values);

}  // namespace scoville::serving
