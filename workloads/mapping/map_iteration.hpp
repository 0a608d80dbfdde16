// Parallel mapping of one iteration: the whole-model ops of decompose_iteration() split over the
// chips of a pool, with the collectives vLLM / SGLang / TensorRT-LLM insert between them
// (docs/mapping.md gives the rules and the closed forms of the collective bytes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/iteration.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"
#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads {

// Layers [first, last) of pipeline stage `stage`: floor(layers / pp) each, the first
// layers % pp stages one more.
struct StageLayers {
  int first = 0;
  int last = 0;
};
StageLayers stage_layers(const ModelConfig& model, int64_t pp, int64_t stage);

// Rank numbering: rank = (replica x pp + stage) x tp + local, local in [0, tp); local =
// attn_group x attn_tp + attn_tp_index.
// Sequences: the iteration's batch is split over the dp replicas, then over the attn_dp groups
// of each replica, as evenly as possible (the first ones get one more); every attention group
// needs at least one sequence.
// One chip role: the ranks that do identical work, and the trace they share.
struct ChipRole {
  ChipTrace trace;  // trace.rank = ranks.front(), trace.multiplicity = ranks.size()
  std::vector<int64_t> ranks;
  int64_t stage = 0;
  int64_t replica_batch = 0;  // sequences of this chip's DP replica
  int64_t attn_batch = 0;     // sequences this chip's attention group holds
};

struct MappedIteration {
  PoolMapping mapping;
  IterationShape shape;  // the whole pool's iteration
  // Ordered by stage, then by replica and attention batch (larger first); the multiplicities
  // sum to mapping.chips.
  std::vector<ChipRole> roles;
};

// Whether an op (or collective) of a mapped trace works on the whole replica's tokens (the FFN /
// MoE experts after the attention-DP groups' tokens are gathered, and the dense FFN's reduction),
// rather than on its attention group's own sequences. Attention-DP cost models use it to price the
// attention of each group apart and the shared part once. Matches RoleBuilder's rules.
bool spans_attention_groups(const ModelConfig& model, const ParallelDegrees& degrees,
                            const std::string& name, int layer);

// Throws InputError (from validate_mapping, or for a batch smaller than dp x attn_dp).
MappedIteration map_iteration(const ModelConfig& model, const IterationShape& shape,
                              const PoolMapping& mapping);
MappedIteration map_iteration(const ModelConfig& model, const IterationShape& shape,
                              const MappingConfig& mapping, const std::string& pool);

}  // namespace scoville::workloads
