// Counting attention work in one sequence and one head, for causal attention with an optional
// sliding window. `context_before` tokens are already cached; `new_tokens` are appended now; a
// token attends to itself and the tokens before it, at most `window` of them (0: no window).
#pragma once

#include <cstdint>

namespace scoville::workloads {

// Query-key pairs scored: sum over new tokens i of min(context_before + i + 1, window).
// A full prefill of N tokens gives N(N+1)/2; one decode token gives min(context, window).
int64_t causal_attended_pairs(int64_t context_before, int64_t new_tokens, int64_t window);

// Cached tokens (from earlier iterations) that some new token attends to, i.e. the K/V rows
// read from memory: all of them, or the window minus the query token on a sliding layer.
int64_t cached_tokens_attended(int64_t context_before, int64_t window);

}  // namespace scoville::workloads
