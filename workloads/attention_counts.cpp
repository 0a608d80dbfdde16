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

int64_t chunked_attended_pairs(int64_t context_before, int64_t new_tokens, int64_t chunk) {
  if (new_tokens <= 0 || chunk <= 0) return 0;
  int64_t pairs = 0;
  int64_t position = context_before;  // 0-based position of the next new token
  const int64_t end = context_before + new_tokens;
  while (position < end) {
    // Positions [position, last) share one chunk; the token at p sees p mod chunk + 1 keys.
    const int64_t chunk_end = (position / chunk + 1) * chunk;
    const int64_t last = std::min(end, chunk_end);
    pairs += sum_range(position % chunk + 1, (last - 1) % chunk + 1);
    position = last;
  }
  return pairs;
}

int64_t chunked_cached_tokens_attended(int64_t context_before, int64_t chunk) {
  return chunk <= 0 ? context_before : context_before % chunk;
}

int64_t selected_cached_tokens(int64_t context_before, int64_t new_tokens, int64_t top_k) {
  if (new_tokens <= 0) return 0;
  // new_tokens x top_k cannot overflow here: both are bounded by the loader (2^24 each).
  return std::min(context_before, new_tokens * top_k);
}

}  // namespace scoville::workloads
