#include "models/kv/kv_block_manager.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scoville::models {

KvBlockManager::KvBlockManager(Bytes capacity, Bytes bytes_per_token, int64_t block_tokens)
    : block_tokens_(block_tokens) {
  if (block_tokens < 1 || bytes_per_token.si() <= 0) {
    throw std::invalid_argument("KvBlockManager: block_tokens >= 1 and bytes_per_token > 0");
  }
  const double block_bytes = bytes_per_token.si() * static_cast<double>(block_tokens);
  capacity_blocks_ = static_cast<int64_t>(std::floor(std::max(0.0, capacity.si()) / block_bytes));
}

KvBlockManager::KvBlockManager(int64_t capacity_blocks, int64_t block_tokens,
                               int64_t fixed_blocks_per_sequence)
    : block_tokens_(block_tokens),
      capacity_blocks_(capacity_blocks),
      fixed_blocks_(fixed_blocks_per_sequence) {
  if (block_tokens < 1 || capacity_blocks < 0 || fixed_blocks_per_sequence < 0) {
    throw std::invalid_argument(
        "KvBlockManager: block_tokens >= 1, capacity_blocks >= 0 and fixed blocks >= 0");
  }
}

int64_t KvBlockManager::tokens_of(int64_t sequence) const {
  const auto it = tokens_.find(sequence);
  return it == tokens_.end() ? 0 : it->second;
}

bool KvBlockManager::admit(int64_t sequence, int64_t tokens) {
  if (holds(sequence)) return grow(sequence, tokens);
  const int64_t need = held_blocks(tokens);
  if (need > free_blocks()) return false;
  used_blocks_ += need;
  tokens_[sequence] = tokens;
  admitted_.push_back(sequence);
  return true;
}

bool KvBlockManager::grow(int64_t sequence, int64_t tokens) {
  const int64_t held = tokens_of(sequence);
  const int64_t need = blocks_for(held + tokens) - blocks_for(held);
  // Younger sequences (admitted after this one) may be preempted, youngest first.
  int64_t reclaimable = 0;
  std::vector<int64_t> victims;
  for (auto it = admitted_.rbegin(); it != admitted_.rend() && need > free_blocks() + reclaimable;
       ++it) {
    if (*it == sequence) break;
    reclaimable += held_blocks(tokens_.at(*it));
    victims.push_back(*it);
  }
  if (need > free_blocks() + reclaimable) return false;
  for (int64_t v : victims) {
    release(v);
    if (on_evict) on_evict(v);
  }
  used_blocks_ += need;
  tokens_[sequence] = held + tokens;
  return true;
}

void KvBlockManager::shrink(int64_t sequence, int64_t tokens) {
  const auto it = tokens_.find(sequence);
  if (it == tokens_.end() || tokens >= it->second) return;
  const int64_t keep = std::max<int64_t>(0, tokens);
  used_blocks_ -= blocks_for(it->second) - blocks_for(keep);
  it->second = keep;
}

void KvBlockManager::release(int64_t sequence) {
  const auto it = tokens_.find(sequence);
  if (it == tokens_.end()) return;
  used_blocks_ -= held_blocks(it->second);
  tokens_.erase(it);
  admitted_.erase(std::remove(admitted_.begin(), admitted_.end(), sequence), admitted_.end());
}

}  // namespace scoville::models
