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

// Chunked local attention (Llama 4): the sequence is cut into chunks of `chunk` tokens from
// position 0 and a token attends to the tokens of its own chunk up to itself. Pairs: sum over
// the new tokens at positions p of p mod chunk + 1. Cached tokens attended: those of the first
// new token's chunk before it, context_before mod chunk.
int64_t chunked_attended_pairs(int64_t context_before, int64_t new_tokens, int64_t chunk);
int64_t chunked_cached_tokens_attended(int64_t context_before, int64_t chunk);

// Top-k sparse attention (DSA): each new token attends to min(its keys, top_k) keys, the pair
// count of a window of top_k; the cached keys read are those some new token selects, at most
// new_tokens x top_k of the cached ones (a decode token reads min(context_before, top_k)).
int64_t selected_cached_tokens(int64_t context_before, int64_t new_tokens, int64_t top_k);

}  // namespace scoville::workloads
