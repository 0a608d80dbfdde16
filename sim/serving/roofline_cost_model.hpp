// The "roofline" fidelity level of the serving layer: an IterationCostModel that prices an
// iteration from the chip's peak rates and the mapped ops, fast enough for whole concurrency
// sweeps. Per chip role (workloads/mapping/map_iteration):
//   op time         = max(FLOPs / peak at the op's executed precision, bytes / HBM bandwidth)
//   collective time = the network model's time for its size (sampled per kind and group size,
//                     interpolated; docs/serving.md)
//   iteration time  = sum over pipeline stages of (ops + collectives of the heaviest role)
//                     + software overheads (per op, per layer, per collective call, per
//                     iteration)
//   energy          = action counts x the chip's energy table + static power x time, all chips.
// What this ignores (overlap of compute and transfers, cache reuse, tiling waste, contention of
// collectives with each other, ...) is listed in docs/serving.md.
//
// A mixed batch is priced as groups: the decode sequences with the same verified positions form
// one group at their mean context (exact for the linear attention work, see docs), each prefill
// chunk is a group of one. The groups' ops are fused by (op, layer): FLOPs and activation/KV
// bytes add, weight bytes count once (the largest), collective bytes add.
//
// Attention-DP (IterationBatch::attention_dp = the mapping's attn_dp, sequences tagged with their
// rank): each rank's sequences form their own groups, mapped so that an attention group holds
// exactly them; per fused op the time is the slowest rank's for the attention-side ops and that
// of all ranks' tokens together for the ops that span them (workloads::spans_attention_groups:
// FFN / MoE experts), so the iteration waits for the most loaded rank. Without rank tags the
// mapping splits the batch evenly.
//
// The cache: contexts and prefill chunk lengths are rounded to buckets of relative width
// 2^-bucket_bits (exact below 2^bucket_bits), and the cost of a bucketed batch is kept. The cost
// is then a pure function of the bucketed batch, so results do not depend on what was cached.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/chip/chip_params.hpp"
#include "models/host/host_params.hpp"
#include "models/kv/kv_placement.hpp"
#include "models/network/network_model.hpp"
#include "models/network/topology.hpp"
#include "sim/serving/efficiency_knobs.hpp"
#include "sim/serving/iteration_cost_model.hpp"
#include "sim/serving/iteration_explanation.hpp"
#include "sim/serving/kernel_path.hpp"
#include "sim/serving/op_cost_model.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"

namespace scoville::serving {

// Software time of a serving stack (arch/software profiles); zero: hardware time only.
struct SoftwareOverheads {
  Duration per_op_launch;
  Duration per_layer_sync;
  Duration per_iteration;
  Duration per_collective;   // per collective call of the heaviest role (config::SoftwareProfile)
  Duration per_all_to_all;   // per all-to-all call instead of per_collective
  Duration per_sequence;     // per sequence of the iteration (one host scheduler's share)
  Duration per_kv_transfer;  // per request handed from a prefill to a decode pool
  // Vector ops run inside their neighbours' kernels (config::SoftwareProfile): each costs its
  // busy time alone (no fixed per-op latency) and is no kernel of its own (no per-op launch).
  bool fused_vector_ops = false;
  // The stack's kernel paths for this chip (sim/serving/kernel_path.hpp): an op one of them
  // takes runs at least as long as the path's time, at the op-table and roofline fidelities.
  std::vector<KernelPath> kernel_paths;
  // Top-p requests sample by sorting the vocabulary (config::SoftwareProfile); greedy ones never.
  bool top_p_sorts_vocabulary = false;
  // Disaggregated pools hold every layer's whole context and hand all of it over
  // (config::SoftwareProfile::disaggregated_kv_whole_context).
  bool disaggregated_kv_whole_context = false;
};

struct RooflineOptions {
  bool cache = true;
  int bucket_bits = 6;           // relative bucket width 2^-6 (< 0.8% error on a context)
  bool collapse_decodes = true;  // false: one group per distinct decode context (reference)
  // Layers of one kind (MoE or dense, sliding or full attention, MTP or main, the same ops) are
  // priced once and counted that many times: they are the same ops under the expected routing
  // the pricer maps with. false: every layer priced (the reference the test compares against).
  bool collapse_layers = true;
  // Priced groups kept per pool before the cache is dropped; bounds memory on long sweeps.
  size_t max_cached_groups = 4096;
  // Each fused op's hardware time and actions from this model (the simulated op table,
  // sim/engine/simulated_op_cost.hpp) instead of the closed form; null: the closed form. With
  // one, the calibration knobs decorate its times (EfficiencyKnobs::op_time: the fraction of the
  // binding resource), so they must be fitted at that fidelity (op-table overlays).
  std::shared_ptr<const OpCostModel> op_cost = nullptr;
  // Where the attention ops read their KV from (models/kv/kv_placement.hpp): "local" (the
  // owner's HBM), "striped" (the TP group's HBM: the other chips' shares as an exchange over the
  // network), "sram_window" (the newest tokens from on-chip SRAM: an SRAM-fed input of the op)
  // or "remote_pool" (host memory over the host link, needs `host`). "disaggregated" reads as
  // local. The same split as the system engine's (SystemEngine::kv_shares / price_kv).
  std::string kv_placement = "local";
  int64_t kv_block_tokens = 16;
  int64_t sram_window_tokens = 0;  // sram_window: 0 = half the shared SRAM, as the engine
  std::optional<models::HostParams> host;
};

// Rounds `value` to its bucket's centre: exact below 2^bits, else to a multiple of
// 2^(floor(log2 value) - bits). Relative error at most 2^-(bits + 1).
int64_t bucket_value(int64_t value, int bits);

// KV blocks a pool holds (all its chips), from the HBM left after weights and activations of a
// full decode batch (workloads::memory_footprint), for `block_tokens` tokens per block. Shared
// by every fidelity level so they schedule the same batches. Throws InputError when the
// pool's weights and activations do not fit in HBM. `kv_memory_per_chip`: the KV lives in that
// much memory per chip instead of the HBM left (remote_pool: the host's share per chip).
int64_t pool_kv_capacity_blocks(const workloads::ModelConfig& model, const models::ChipParams& chip,
                                const workloads::PoolMapping& mapping, int64_t block_tokens,
                                std::optional<Bytes> kv_memory_per_chip = std::nullopt);

class RooflineCostModel : public IterationCostModel {
 public:
  // `pools[i]` is the mapping of ServingSystem::pools[i]. `network`: the chips' network (its
  // pools sit on consecutive endpoints in this order); nullopt only when no mapping needs a
  // collective.
  // `efficiency`: calibration knobs (identity: raw peaks; efficiency_knobs.hpp).
  // Throws InputError for a mapping the model does not admit or that does not fit in HBM.
  RooflineCostModel(workloads::ModelConfig model, models::ChipParams chip,
                    std::vector<workloads::PoolMapping> pools,
                    std::optional<models::Topology> network, SoftwareOverheads software = {},
                    RooflineOptions options = {}, EfficiencyKnobs efficiency = {});
  ~RooflineCostModel() override;
  RooflineCostModel(const RooflineCostModel&) = delete;
  RooflineCostModel& operator=(const RooflineCostModel&) = delete;

  IterationCost cost(const IterationBatch& batch) const override;
  // The same iteration's time by part (sim/serving/iteration_explanation.hpp): its cost is
  // cost(batch)'s, and the parts add up to its time.
  IterationExplanation explain(const IterationBatch& batch) const;

  // pool_kv_capacity_blocks of pools[pool].
  int64_t kv_capacity_blocks(int pool, int64_t block_tokens) const;
  // KV bytes per token over the whole pool (every layer, every KV head once).
  Bytes kv_bytes_per_token() const;
  // A point-to-point transfer between two chips of the network (the KV handoff of
  // disaggregated pools), timed as the collectives are.
  Duration transfer_time(Bytes bytes) const;
  // One request's KV handoff in disaggregated serving: the disaggregated KV placement's flows
  // (models::KvPlacement::prefill_handoff) from the prefill pool's chips to the decode pool's,
  // timed on the network as one step (sampled per pair of chip spans, interpolated in bytes).
  Duration kv_handoff_time(Bytes bytes, models::ChipSpan prefill, models::ChipSpan decode) const;

  // Replaces the calibration knobs; keeps the knob-independent op cache (what calibrate needs
  // to evaluate many knob sets on one mapping cheaply).
  void set_efficiency(const EfficiencyKnobs& knobs);
  const EfficiencyKnobs& efficiency() const;

  // The fidelity that prices ops: "roofline", or the op-cost model's.
  std::string fidelity() const;

  int64_t cache_hits() const { return hits_; }
  int64_t cache_misses() const { return misses_; }
  // Iterations priced with layers of one kind once each (collapse_layers), and those whose groups
  // classed the layers differently and were priced layer by layer.
  int64_t collapsed_iterations() const;
  int64_t layer_by_layer_iterations() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  mutable int64_t hits_ = 0;
  mutable int64_t misses_ = 0;
};

}  // namespace scoville::serving
