// "Roofline-lite" iteration cost: a linear model with one term per kind of work. It is the test
// double of the serving layer and a documented reference for back-of-envelope studies, not the
// simulator: it knows no chip, no mapping and no overlap between compute and memory traffic.
//
//   time   = fixed
//          + prefill_token_time x (prefill tokens)         compute-bound prompt processing
//          + decode_sequence_time x (decode sequences)     per-sequence overheads (sampling, ...)
//          + decode_token_time x (decode positions)        compute per verified position
//          + kv_token_time x sum over sequences of context_after   KV-cache reads (attention)
//            (attention-DP: A x the most loaded rank's sum, each rank having 1 / A of the chips)
//   energy = pool_power x time + energy_per_token x (prefill tokens + decode positions)
//
// The weight read of a memory-bound decode step is the `fixed` term. For power management
// (IterationCost::power) pool_power is static power, energy_per_token on-chip dynamic energy, and
// the prefill and decode token terms scale with the clock.
#pragma once

#include "sim/serving/iteration_cost_model.hpp"

namespace scoville::serving {

struct AnalyticCostParams {
  Duration fixed;
  Duration prefill_token_time;
  Duration decode_sequence_time;
  Duration decode_token_time;
  Duration kv_token_time;
  Power pool_power;  // all chips of the pool while it runs an iteration
  Energy energy_per_token;
};

class AnalyticCostModel final : public IterationCostModel {
 public:
  // Refuses negative parameters, and a fixed time that is not positive (an empty-ish iteration
  // must still take time, or the event loop could spin) with InputError.
  explicit AnalyticCostModel(AnalyticCostParams params);
  IterationCost cost(const IterationBatch& batch) const override;
  const AnalyticCostParams& params() const { return params_; }

 private:
  AnalyticCostParams params_;
};

}  // namespace scoville::serving
