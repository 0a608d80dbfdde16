// A linear-attention model's per-sequence state (Qwen3-Next's Gated DeltaNet layers) in the
// serving layer's KV account: the bytes one sequence's state takes on a chip, counted in KV
// blocks of that chip's per-token KV bytes, so that admission reserves it as the memory
// footprint (workloads::memory_footprint) holds it. Models whose cache grows with the context
// alone (DSA's indexer keys included: they are per token) hold no such blocks. Also the other
// side of the same account: the layers whose per-token cache stops at a window or chunk
// (pool_bounded_kv_layers), whose share of a sequence's blocks stops growing there.
#pragma once

#include <cstdint>
#include <vector>

#include "models/chip/chip_params.hpp"
#include "models/kv/kv_block_manager.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"

namespace scoville::serving {

// Blocks every admitted sequence of a pool with `mapping` holds beside its tokens' blocks:
// ceil(state bytes per chip / (block_tokens x KV bytes per token per chip)), the largest over
// the pool's roles (pipeline stages may hold different layers). 0 when the model has no linear
// layers, or when no role holds a per-token cache to express the state in.
int64_t pool_state_blocks_per_sequence(const workloads::ModelConfig& model,
                                       const models::ChipParams& chip,
                                       const workloads::PoolMapping& mapping, int64_t block_tokens);

// The model's layers whose cache stops growing at a bound, grouped by that bound: sliding-window
// layers keep at most the window, chunked layers at most one chunk (ModelConfig::stored_context),
// each group's share the fraction of the KV layers it has (every KV layer keeps the same bytes
// per token). Empty when every KV layer keeps the whole context. Counted over the whole model:
// with pipeline stages that hold different mixes of layers, each stage's own mix would be exact.
std::vector<models::BoundedKvLayers> pool_bounded_kv_layers(const workloads::ModelConfig& model);

}  // namespace scoville::serving
