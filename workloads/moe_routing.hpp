// How many distinct experts a batch touches. Issue-2 routing model: every token picks top_k
// distinct experts uniformly at random, independently of other tokens. A given expert is then
// missed by one token with probability 1 - top_k/experts, and by all T tokens with that power,
// so the expected number touched is experts * (1 - (1 - top_k/experts)^T): exactly top_k at
// T = 1, approaching all experts as T grows. Issue 3 replaces this with drawn distributions.
#pragma once

#include <cstdint>

namespace scoville::workloads {

double expected_experts_touched(int64_t experts, int64_t top_k, int64_t tokens);

// The expectation rounded to a whole expert count, kept within what T tokens can touch:
// [min(top_k, experts), min(experts, tokens * top_k)].
int64_t experts_touched(int64_t experts, int64_t top_k, int64_t tokens);

}  // namespace scoville::workloads
