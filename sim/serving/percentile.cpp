#include "sim/serving/percentile.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scoville::serving {
namespace {

// np.percentile's linear interpolation between the order statistics at floor(h) and the next,
// found by selection instead of a full sort: O(n) per percentile where sorting a serving run's
// millions of inter-token latencies was a sixth of validate's time. The values are those a sort
// would give, so the result is bit-identical (tests/sim/serving_metrics_test.cpp compares both).
// `first` is where the unselected part of `values` starts: percentiles taken in ascending q
// reuse the partition the previous one left (everything before `first` is no larger than
// anything from it on).
double select_percentile(std::vector<double>& values, size_t& first, double q) {
  const double h = q / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  if (lo >= first) {
    std::nth_element(values.begin() + static_cast<std::ptrdiff_t>(first),
                     values.begin() + static_cast<std::ptrdiff_t>(lo), values.end());
    first = lo;
  }
  // values[lo] is in place and no element after it is smaller: the next order statistic is the
  // least of them.
  const double at_lo = values[lo];
  const double at_hi =
      hi == lo ? at_lo
               : *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(hi), values.end());
  return at_lo + (h - static_cast<double>(lo)) * (at_hi - at_lo);
}

}  // namespace

double percentile(std::vector<double> values, double q) {
  if (values.empty() || !(q >= 0.0 && q <= 100.0)) {
    throw std::invalid_argument("percentile needs values and q in [0, 100]");
  }
  size_t first = 0;
  return select_percentile(values, first, q);
}

Distribution summarize(std::vector<double> values) {
  Distribution d;
  d.count = static_cast<int64_t>(values.size());
  if (values.empty()) return d;
  double sum = 0.0;
  for (double v : values) sum += v;
  d.mean = sum / static_cast<double>(values.size());
  double squares = 0.0;
  for (double v : values) squares += (v - d.mean) * (v - d.mean);
  d.std = std::sqrt(squares / static_cast<double>(values.size()));
  size_t first = 0;  // ascending q: each selection starts where the last one left off
  d.median = select_percentile(values, first, 50.0);
  d.p90 = select_percentile(values, first, 90.0);
  d.p95 = select_percentile(values, first, 95.0);
  d.p99 = select_percentile(values, first, 99.0);
  return d;
}

}  // namespace scoville::serving
