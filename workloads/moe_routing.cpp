#include "workloads/moe_routing.hpp"

#include <algorithm>
#include <cmath>

namespace scoville::workloads {

double expected_experts_touched(int64_t experts, int64_t top_k, int64_t tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0.0;
  const double e = static_cast<double>(experts);
  const double miss_one_token = 1.0 - static_cast<double>(top_k) / e;
  return e * (1.0 - std::pow(miss_one_token, static_cast<double>(tokens)));
}

int64_t experts_touched(int64_t experts, int64_t top_k, int64_t tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0;
  const int64_t most = std::min(experts, tokens * top_k);
  const int64_t least = std::min(top_k, experts);
  const int64_t rounded = std::llround(expected_experts_touched(experts, top_k, tokens));
  return std::clamp(rounded, least, most);
}

}  // namespace scoville::workloads
