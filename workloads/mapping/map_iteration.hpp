// Parallel mapping of one iteration: the whole-model ops of decompose_iteration() split over the
// chips of a pool, with the collectives vLLM / SGLang / TensorRT-LLM insert between them
// (docs/mapping.md gives the rules and the closed forms of the collective bytes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/iteration.hpp"
#include "workloads/mapping/expert_placement.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"
#include "workloads/routing_distribution.hpp"
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
// Drawn routing only: the op each rank of a role runs at one routed-expert compute node of the
// role's trace (expert_placement.hpp). The ranks of a role then do identical work everywhere
// except at these nodes.
struct RankExpertOps {
  size_t node = 0;           // index into trace.nodes
  std::vector<Op> per_rank;  // one per entry of ChipRole::ranks, in that order
};

// One chip role: the ranks that do identical work (under a drawn routing: except their routed
// experts, rank_experts), and the trace they share.
struct ChipRole {
  ChipTrace trace;  // trace.rank = ranks.front(), trace.multiplicity = ranks.size(); a routed-
                    // expert node holds ranks.front()'s op
  std::vector<RankExpertOps> rank_experts;  // empty under the expected routing or without EP
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
  // Drawn routing only: per DP replica batch and EP layer, the pairs and experts each EP rank
  // got (one draw per replica batch and layer: replicas of equal batch share it).
  struct EpLayerLoad {
    int64_t replica_batch = 0;
    int layer = 0;
    std::vector<RankExpertLoad> ranks;  // per EP rank
    double imbalance() const;           // most pairs on one rank / mean pairs per rank
  };
  std::vector<EpLayerLoad> ep_loads;
};

// Whether an op (or collective) of a mapped trace works on the whole replica's tokens (the FFN /
// MoE experts after the attention-DP groups' tokens are gathered, and the dense FFN's reduction),
// rather than on its attention group's own sequences. Attention-DP cost models use it to price the
// attention of each group apart and the shared part once. Matches RoleBuilder's rules.
bool spans_attention_groups(const ModelConfig& model, const ParallelDegrees& degrees,
                            const std::string& name, int layer);

// Throws std::invalid_argument naming the first op that declares no sharding rule (Sharding::
// kUnset): the mapper splits ops by their declared rule only, so an op without one cannot be
// mapped. map_iteration() checks every op it maps this way.
void require_sharding_rules(const std::vector<Op>& ops);

// Throws InputError (from validate_mapping, or for a batch smaller than dp x attn_dp).
// `routing`: kExpected (default) splits every MoE layer's experts evenly over the EP ranks; a
// drawn distribution draws, per EP layer and replica batch, the tokens of each expert over the
// replica's tokens (stream "moe_routing/iteration<i>/layer<l>" of routing.seed, as
// decompose_batch draws) and gives each rank its own expert ops (rank_experts). Throws
// InputError when the model cannot use the routing (routing_config_problem()).
MappedIteration map_iteration(const ModelConfig& model, const IterationShape& shape,
                              const PoolMapping& mapping, const RoutingConfig& routing = {});
MappedIteration map_iteration(const ModelConfig& model, const IterationShape& shape,
                              const MappingConfig& mapping, const std::string& pool);

}  // namespace scoville::workloads
