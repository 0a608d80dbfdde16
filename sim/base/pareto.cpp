#include "sim/base/pareto.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace scoville {

std::vector<size_t> pareto_frontier(const std::vector<double>& xs, const std::vector<double>& ys) {
  if (xs.size() != ys.size())
    throw std::invalid_argument("pareto_frontier: x and y differ in size");
  std::vector<size_t> order(xs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return xs[a] != xs[b] ? xs[a] > xs[b] : ys[a] > ys[b];
  });
  std::vector<size_t> kept;
  double best = -std::numeric_limits<double>::infinity();
  for (size_t i : order) {
    if (ys[i] > best) {
      kept.push_back(i);
      best = ys[i];
    }
  }
  std::reverse(kept.begin(), kept.end());
  return kept;
}

}  // namespace scoville
