// Paged KV cache of one chip (vLLM's PagedAttention block table): fixed-size blocks, a capacity
// in blocks (from the memory left after weights and activations), and hooks for the serving
// layer: admission (does a sequence fit), growth by one token at a time, release, and
// preemption of the most recently admitted sequences when a growing one needs room (vLLM's
// recompute preemption order), each preempted sequence reported through on_evict. A sequence may
// also hold a fixed number of blocks whatever its length (a linear-attention model's recurrent
// state, counted in KV blocks of the same bytes: serving::pool_state_blocks_per_sequence), and
// some of a token's layers may stop keeping it past a bound (sliding-window and chunked
// attention: BoundedKvLayers), as vLLM's hybrid KV cache manager frees their out-of-window blocks.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::models {

// Layers whose cache stops growing at a bound: their share of one token's KV bytes in every KV
// layer (a block holds block_tokens tokens of every KV layer), and the most tokens they keep (a
// sliding window, an attention chunk).
struct BoundedKvLayers {
  double share = 0.0;      // in (0, 1]; the shares of a pool sum to at most 1
  int64_t max_tokens = 0;  // >= 1
};

// Tokens of every KV layer that `tokens` tokens of one sequence come to: tokens x (1 - the
// bounded shares) + each bounded share x min(tokens, its max_tokens); `tokens` when none is.
double kv_token_equivalents(int64_t tokens, const std::vector<BoundedKvLayers>& bounded);

// Blocks that `tokens` tokens of one sequence take: ceil(tokens / block_tokens) when no layer is
// bounded; otherwise the sequence's bytes in block units, tokens x (1 - the bounded shares) + each
// bounded share x min(tokens, its max_tokens), rounded up to whole blocks.
int64_t kv_blocks_for_tokens(int64_t tokens, int64_t block_tokens,
                             const std::vector<BoundedKvLayers>& bounded);

class KvBlockManager {
 public:
  // capacity: bytes for KV; bytes_per_token: one token's KV on this chip.
  KvBlockManager(Bytes capacity, Bytes bytes_per_token, int64_t block_tokens);
  // A capacity already counted in blocks (the serving layer's pool_kv_capacity_blocks), and the
  // blocks every admitted sequence holds beside its tokens' (its fixed-size state).
  // `bounded`: the layers whose cache stops at a bound (std::invalid_argument unless each share
  // is in (0, 1], they sum to at most 1 and each max_tokens is >= 1).
  KvBlockManager(int64_t capacity_blocks, int64_t block_tokens,
                 int64_t fixed_blocks_per_sequence = 0, std::vector<BoundedKvLayers> bounded = {});

  int64_t block_tokens() const { return block_tokens_; }
  int64_t capacity_blocks() const { return capacity_blocks_; }
  int64_t free_blocks() const { return capacity_blocks_ - used_blocks_; }
  int64_t blocks_for(int64_t tokens) const {
    return kv_blocks_for_tokens(tokens, block_tokens_, bounded_);
  }
  int64_t fixed_blocks_per_sequence() const { return fixed_blocks_; }
  // Blocks a sequence of `tokens` tokens holds: its tokens' blocks and the fixed ones.
  int64_t held_blocks(int64_t tokens) const { return fixed_blocks_ + blocks_for(tokens); }

  // Sequence ids are non-negative (the serving layer's request indices); a negative one is
  // refused with std::invalid_argument.
  // Admission: true (and the blocks are taken) when `tokens` fit now; false leaves no trace.
  bool admit(int64_t sequence, int64_t tokens);
  // Adds tokens to an admitted sequence; preempts younger sequences if needed (on_evict is
  // called for each). False when even that cannot make room (then nothing changes).
  bool grow(int64_t sequence, int64_t tokens);
  void release(int64_t sequence);
  // Keeps only the first `tokens` tokens of a sequence (rejected speculative positions), freeing
  // the blocks they no longer need; its admission order is unchanged. No-op when it holds fewer.
  void shrink(int64_t sequence, int64_t tokens);
  // Sequences held, oldest admission first (the reverse of the preemption order).
  const std::vector<int64_t>& admission_order() const { return admitted_; }
  bool holds(int64_t sequence) const { return held_tokens(sequence) != kNotHeld; }
  int64_t tokens_of(int64_t sequence) const;

  std::function<void(int64_t sequence)> on_evict;

 private:
  static constexpr int64_t kNotHeld = -1;
  // Tokens held per sequence id, kNotHeld where none: a dense table, since the serving layer's
  // ids are request indices (0..N-1) and grow() and shrink() look one up for every running
  // sequence of every iteration (a std::map there was a quarter of validate's time).
  int64_t held_tokens(int64_t sequence) const {
    return sequence >= 0 && static_cast<size_t>(sequence) < tokens_.size()
               ? tokens_[static_cast<size_t>(sequence)]
               : kNotHeld;
  }
  int64_t& slot(int64_t sequence);  // the table entry, grown to hold `sequence`

  int64_t block_tokens_;
  int64_t capacity_blocks_;
  int64_t fixed_blocks_ = 0;
  std::vector<BoundedKvLayers> bounded_;
  int64_t used_blocks_ = 0;
  std::vector<int64_t> tokens_;    // sequence id -> tokens held, or kNotHeld
  std::vector<int64_t> admitted_;  // admission order
};

}  // namespace scoville::models
