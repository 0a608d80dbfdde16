#include "workloads/attention_counts.hpp"

#include <algorithm>

namespace scoville::workloads {

namespace {
// Sum of the integers first..last (inclusive); 0 when the range is empty.
int64_t sum_range(int64_t first, int64_t last) {
  return last < first ? 0 : (first + last) * (last - first + 1) / 2;
}
}  // namespace

int64_t causal_attended_pairs(int64_t context_before, int64_t new_tokens, int64_t window) {
  if (new_tokens <= 0) return 0;
  // New token i sees j = context_before + i + 1 keys before the cap; j runs over [first, last].
  const int64_t first = context_before + 1;
  const int64_t last = context_before + new_tokens;
  if (window <= 0 || last <= window) return sum_range(first, last);
  if (first >= window) return new_tokens * window;
  return sum_range(first, window) + (last - window) * window;
}

int64_t cached_tokens_attended(int64_t context_before, int64_t window) {
  if (window <= 0) return context_before;
  return std::min(context_before, window - 1);
}

}  // namespace scoville::workloads
