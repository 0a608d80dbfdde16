// Shared by the serving scheduler tests: a simple analytic cost, a cost model that records
// every batch it prices, a one-pool system for KV admission tests and a burst of equal requests.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/kv/kv_block_manager.hpp"
#include "sim/serving/analytic_cost_model.hpp"
#include "sim/serving/iteration_cost_model.hpp"
#include "sim/serving/serving_config.hpp"
#include "workloads/requests/request.hpp"

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

// One colocated pool whose KV account is the thing under test: `capacity_blocks` of
// `block_tokens`, `state_blocks` per admitted sequence, the given bounded layers; the batch limits
// are high enough that a whole burst prefills at once, so only the KV account decides admission.
struct KvPoolSpec {
  int64_t capacity_blocks = 0;
  int64_t block_tokens = 16;
  int64_t chips = 1;
  int64_t state_blocks = 0;
  std::vector<models::BoundedKvLayers> bounded_layers;
};

inline ServingSystem kv_admission_pool(KvPoolSpec spec) {
  PoolConfig p;
  p.name = "colocated";
  p.chips = spec.chips;
  p.kv_capacity_blocks = spec.capacity_blocks;
  p.state_blocks_per_sequence = spec.state_blocks;
  p.bounded_kv_layers = std::move(spec.bounded_layers);
  p.scheduler.max_num_seqs = 1024;
  p.scheduler.max_num_batched_tokens = 1 << 20;  // the whole burst prefills at once
  p.scheduler.kv_block_tokens = spec.block_tokens;
  ServingSystem s;
  s.pools.push_back(p);
  return s;
}

// `requests` requests arriving together, each of `input` prompt and `output` answer tokens.
inline workloads::RequestPlan burst(int64_t requests, int64_t input, int64_t output) {
  workloads::RequestPlan plan;
  for (int64_t i = 0; i < requests; ++i) {
    workloads::Request r;
    r.id = i;
    r.input_tokens = input;
    r.output_tokens = output;
    plan.requests.push_back(r);
  }
  return plan;
}

}  // namespace scoville::serving::test
