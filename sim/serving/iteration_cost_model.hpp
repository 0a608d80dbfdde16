// The serving layer's one question to the hardware: how long does this iteration take on this pool,
// and what energy does it use? The SystemC engine answers it for real systems; AnalyticCostModel
// answers it from a handful of parameters for tests. Implementations are pure functions of the
// batch (the scheduler may call them in any order and relies on the same batch costing the same).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/energy/energy_model.hpp"
#include "sim/base/units.hpp"

namespace scoville::serving {

enum class SequencePhase { kPrefill, kDecode };

// One sequence's share of an iteration. Prefill: a chunk of the prompt (possibly all of it), with
// `context_before` prompt tokens already in the KV cache from earlier chunks. Decode: `new_tokens`
// positions verified in one forward pass (1, or 1 + draft depth with MTP / speculative decoding),
// attending to `context_before` cached tokens. context_after = context_before + new_tokens.
struct SequenceWork {
  SequencePhase phase = SequencePhase::kDecode;
  int64_t new_tokens = 1;
  int64_t context_before = 0;
  int64_t context_after = 1;
  int64_t rank = 0;  // attention-DP rank that holds it, in [0, IterationBatch::attention_dp)
};

enum class PoolRole { kColocated, kPrefill, kDecode };
std::string to_string(PoolRole role);

struct IterationBatch {
  int pool = 0;  // index into ServingSystem::pools
  PoolRole role = PoolRole::kColocated;
  int64_t chips = 1;  // chips of the pool that run this iteration together
  // Attention-DP ranks the scheduler placed the sequences on (SequenceWork::rank). Every rank
  // runs the attention of its own sequences; the FFN / MoE layers work on all of them, so the
  // iteration waits for the most loaded rank. 1: the cost model splits the batch itself.
  int64_t attention_dp = 1;
  std::vector<SequenceWork> sequences;

  int64_t prefill_tokens() const;
  int64_t decode_tokens() const;
  int64_t decode_sequences() const;
};

// What a power-managed pool needs to re-price an iteration at a lower clock (sim/serving/
// serving_power.hpp): the energy by component at the nominal clock (its total is
// IterationCost::energy) and the part of the time that scales as 1 / clock. The rest of the time
// (HBM-bound ops, collectives, software) is taken not to change with the clock.
struct IterationPowerParts {
  models::EnergyBreakdown energy;
  Duration clock_bound_time;
};

struct IterationCost {
  Duration time;  // wall time of the iteration on the pool, > 0
  Energy energy;  // energy of all the pool's chips over `time`
  // Optional, for reports: named parts of `time` (they need not sum to it when parts overlap).
  std::vector<std::pair<std::string, Duration>> breakdown;
  // Optional: without it a pool is never throttled (its cost is taken as it is).
  std::optional<IterationPowerParts> power;
};

class IterationCostModel {
 public:
  virtual ~IterationCostModel() = default;
  virtual IterationCost cost(const IterationBatch& batch) const = 0;
};

}  // namespace scoville::serving
