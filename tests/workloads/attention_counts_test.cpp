#include <catch2/catch.hpp>

#include <algorithm>

#include "workloads/attention_counts.hpp"

using namespace scoville::workloads;

namespace {
// The definition, summed token by token.
int64_t pairs_by_sum(int64_t context_before, int64_t new_tokens, int64_t window) {
  int64_t sum = 0;
  for (int64_t i = 0; i < new_tokens; ++i) {
    const int64_t keys = context_before + i + 1;
    sum += window > 0 ? std::min(keys, window) : keys;
  }
  return sum;
}
}  // namespace

TEST_CASE("full prefill scores N(N+1)/2 pairs", "[attention]") {
  const int64_t n = 8192;
  CHECK(causal_attended_pairs(0, n, 0) == n * (n + 1) / 2);
}

TEST_CASE("one decode token scores its context, capped by the window", "[attention]") {
  const int64_t context = 4096;
  const int64_t window = 128;
  CHECK(causal_attended_pairs(context - 1, 1, 0) == context);
  CHECK(causal_attended_pairs(context - 1, 1, window) == window);
  CHECK(causal_attended_pairs(window / 2 - 1, 1, window) == window / 2);
}

TEST_CASE("closed form equals the token-by-token sum", "[attention]") {
  for (int64_t before : {0, 5, 127, 128, 1000}) {
    for (int64_t added : {1, 7, 128, 300}) {
      for (int64_t window : {0, 1, 128, 256}) {
        INFO("before " << before << " new " << added << " window " << window);
        CHECK(causal_attended_pairs(before, added, window) == pairs_by_sum(before, added, window));
      }
    }
  }
}

TEST_CASE("cached tokens read: all, or the window less the query token", "[attention]") {
  CHECK(cached_tokens_attended(4095, 0) == 4095);
  CHECK(cached_tokens_attended(4095, 128) == 127);
  CHECK(cached_tokens_attended(50, 128) == 50);
  CHECK(cached_tokens_attended(0, 128) == 0);
}
