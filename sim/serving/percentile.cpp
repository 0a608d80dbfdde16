#include "sim/serving/percentile.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scoville::serving {
namespace {

double percentile_of_sorted(const std::vector<double>& values, double q) {
  const double h = q / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

}  // namespace

double percentile(std::vector<double> values, double q) {
  if (values.empty() || !(q >= 0.0 && q <= 100.0)) {
    throw std::invalid_argument("percentile needs values and q in [0, 100]");
  }
  std::sort(values.begin(), values.end());
  return percentile_of_sorted(values, q);
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
  std::sort(values.begin(), values.end());
  d.median = percentile_of_sorted(values, 50.0);
  d.p90 = percentile_of_sorted(values, 90.0);
  d.p95 = percentile_of_sorted(values, 95.0);
  d.p99 = percentile_of_sorted(values, 99.0);
  return d;
}

}  // namespace scoville::serving
