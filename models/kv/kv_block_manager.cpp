#include "models/kv/kv_block_manager.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace scoville::models {

double kv_token_equivalents(int64_t tokens, const std::vector<BoundedKvLayers>& bounded) {
  if (bounded.empty()) return static_cast<double>(tokens);
  double unbounded_share = 1.0;
  double equivalents = 0.0;
  for (const BoundedKvLayers& b : bounded) {
    unbounded_share -= b.share;
    equivalents += b.share * static_cast<double>(std::min(tokens, b.max_tokens));
  }
  return equivalents + std::max(0.0, unbounded_share) * static_cast<double>(tokens);
}

int64_t kv_blocks_for_tokens(int64_t tokens, int64_t block_tokens,
                             const std::vector<BoundedKvLayers>& bounded) {
  if (bounded.empty()) return (tokens + block_tokens - 1) / block_tokens;
  const double block_units = kv_token_equivalents(tokens, bounded);
  // The relative slack keeps a sum of shares that should be whole (0.5 x 32 + 0.5 x 32) from
  // rounding up a block because of the last bit.
  return static_cast<int64_t>(
      std::ceil(block_units / static_cast<double>(block_tokens) * (1.0 - 1e-12)));
}

KvBlockManager::KvBlockManager(Bytes capacity, Bytes bytes_per_token, int64_t block_tokens)
    : block_tokens_(block_tokens) {
  if (block_tokens < 1 || bytes_per_token.si() <= 0) {
    throw std::invalid_argument("KvBlockManager: block_tokens >= 1 and bytes_per_token > 0");
  }
  const double block_bytes = bytes_per_token.si() * static_cast<double>(block_tokens);
  capacity_blocks_ = static_cast<int64_t>(std::floor(std::max(0.0, capacity.si()) / block_bytes));
}

KvBlockManager::KvBlockManager(int64_t capacity_blocks, int64_t block_tokens,
                               int64_t fixed_blocks_per_sequence,
                               std::vector<BoundedKvLayers> bounded)
    : block_tokens_(block_tokens),
      capacity_blocks_(capacity_blocks),
      fixed_blocks_(fixed_blocks_per_sequence),
      bounded_(std::move(bounded)) {
  if (block_tokens < 1 || capacity_blocks < 0 || fixed_blocks_per_sequence < 0) {
    throw std::invalid_argument(
        "KvBlockManager: block_tokens >= 1, capacity_blocks >= 0 and fixed blocks >= 0");
  }
  double shares = 0.0;
  for (const BoundedKvLayers& b : bounded_) {
    if (!(b.share > 0.0 && b.share <= 1.0) || b.max_tokens < 1) {
      throw std::invalid_argument(
          "KvBlockManager: each bounded layer group needs a share in (0, 1] and max_tokens >= 1");
    }
    shares += b.share;
  }
  if (shares > 1.0 + 1e-9) {
    throw std::invalid_argument("KvBlockManager: the bounded layers' shares sum to more than 1");
  }
}

int64_t KvBlockManager::tokens_of(int64_t sequence) const {
  const int64_t held = held_tokens(sequence);
  return held == kNotHeld ? 0 : held;
}

int64_t& KvBlockManager::slot(int64_t sequence) {
  if (sequence < 0) {
    throw std::invalid_argument("KvBlockManager: sequence ids are non-negative, got " +
                                std::to_string(sequence));
  }
  const auto index = static_cast<size_t>(sequence);
  if (index >= tokens_.size()) tokens_.resize(std::max(index + 1, 2 * tokens_.size()), kNotHeld);
  return tokens_[index];
}

bool KvBlockManager::admit(int64_t sequence, int64_t tokens) {
  if (holds(sequence)) return grow(sequence, tokens);
  const int64_t need = held_blocks(tokens);
  if (need > free_blocks()) return false;
  int64_t& entry = slot(sequence);
  used_blocks_ += need;
  entry = tokens;
  admitted_.push_back(sequence);
  return true;
}

bool KvBlockManager::grow(int64_t sequence, int64_t tokens) {
  slot(sequence);  // refuses a negative id before anything changes
  const int64_t held = tokens_of(sequence);
  const int64_t need = blocks_for(held + tokens) - blocks_for(held);
  // Younger sequences (admitted after this one) may be preempted, youngest first.
  int64_t reclaimable = 0;
  std::vector<int64_t> victims;
  for (auto it = admitted_.rbegin(); it != admitted_.rend() && need > free_blocks() + reclaimable;
       ++it) {
    if (*it == sequence) break;
    reclaimable += held_blocks(held_tokens(*it));
    victims.push_back(*it);
  }
  if (need > free_blocks() + reclaimable) return false;
  for (int64_t v : victims) {
    release(v);
    if (on_evict) on_evict(v);
  }
  used_blocks_ += need;
  slot(sequence) = held + tokens;  // looked up again: on_evict may have grown the table
  return true;
}

void KvBlockManager::shrink(int64_t sequence, int64_t tokens) {
  const int64_t held = held_tokens(sequence);
  if (held == kNotHeld || tokens >= held) return;
  const int64_t keep = std::max<int64_t>(0, tokens);
  used_blocks_ -= blocks_for(held) - blocks_for(keep);
  tokens_[static_cast<size_t>(sequence)] = keep;
}

void KvBlockManager::release(int64_t sequence) {
  const int64_t held = held_tokens(sequence);
  if (held == kNotHeld) return;
  used_blocks_ -= held_blocks(held);
  tokens_[static_cast<size_t>(sequence)] = kNotHeld;
  admitted_.erase(std::remove(admitted_.begin(), admitted_.end(), sequence), admitted_.end());
}

}  // namespace scoville::models
