// Shared by the serving scheduler tests: a simple analytic cost and a cost model that records
// every batch it prices.
#pragma once

#include <vector>

#include "sim/serving/analytic_cost_model.hpp"
#include "sim/serving/iteration_cost_model.hpp"

namespace scoville::serving::test {

// A decode step costs fixed + per sequence + KV reads; prefill adds a cost per prompt token.
inline AnalyticCostParams cost_params() {
  AnalyticCostParams p;
  p.fixed = milliseconds(5.0);
  p.prefill_token_time = microseconds(20.0);
  p.decode_sequence_time = microseconds(100.0);
  p.decode_token_time = microseconds(0.0);
  p.kv_token_time = nanoseconds(10.0);
  p.pool_power = watts(1000.0);
  p.energy_per_token = joules(0.01);
  return p;
}

// Records every batch it prices, then delegates.
class RecordingCostModel final : public IterationCostModel {
 public:
  explicit RecordingCostModel(const IterationCostModel& inner) : inner_(inner) {}
  IterationCost cost(const IterationBatch& batch) const override {
    batches.push_back(batch);
    return inner_.cost(batch);
  }
  mutable std::vector<IterationBatch> batches;

 private:
  const IterationCostModel& inner_;
};

}  // namespace scoville::serving::test
