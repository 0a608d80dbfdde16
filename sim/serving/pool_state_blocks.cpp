#include "sim/serving/pool_state_blocks.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "workloads/mapping/map_iteration.hpp"
#include "workloads/mapping/memory_footprint.hpp"

namespace scoville::serving {

int64_t pool_state_blocks_per_sequence(const workloads::ModelConfig& model,
                                       const models::ChipParams& chip,
                                       const workloads::PoolMapping& mapping,
                                       int64_t block_tokens) {
  if (model.linear_layers() == 0) return 0;
  // The same decode shape pool_kv_capacity_blocks sizes the pool with, so both count one chip's
  // bytes the same way.
  const workloads::MappedIteration mapped = workloads::map_iteration(
      model, workloads::IterationShape{workloads::Phase::kDecode, mapping.degrees.attn_dp, 1, 1},
      mapping);
  int64_t blocks = 0;
  for (const workloads::MemoryFootprint& f :
       workloads::memory_footprint(model, mapped, chip.hbm.capacity)) {
    const double block_bytes = f.kv_bytes_per_token.si() * static_cast<double>(block_tokens);
    if (!(block_bytes > 0.0)) continue;  // a stage of linear layers alone: no blocks to count in
    blocks = std::max(
        blocks, static_cast<int64_t>(std::ceil(f.state_bytes_per_sequence.si() / block_bytes)));
  }
  return blocks;
}

std::vector<models::BoundedKvLayers> pool_bounded_kv_layers(const workloads::ModelConfig& model) {
  // A context longer than any bound: stored_context() returns the bound of a bounded layer.
  constexpr int64_t kLongerThanAnyBound = int64_t{1} << 40;
  std::map<int64_t, int64_t> layers_by_bound;
  int64_t kv_layers = 0;
  for (int layer = 0; layer < model.layers(); ++layer) {
    if (!model.layer_has_kv(layer)) continue;
    ++kv_layers;
    const int64_t kept = model.stored_context(layer, kLongerThanAnyBound);
    if (kept < kLongerThanAnyBound) ++layers_by_bound[kept];
  }
  std::vector<models::BoundedKvLayers> bounded;
  for (const auto& [bound, layers] : layers_by_bound) {
    bounded.push_back(models::BoundedKvLayers{
        static_cast<double>(layers) / static_cast<double>(kv_layers), bound});
  }
  return bounded;
}

}  // namespace scoville::serving
