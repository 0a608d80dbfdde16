// serving::IterationCostModel on the SystemC system engine, with an iteration cache.
//
// A serving batch is split by phase: its decode sequences form one uniform iteration (batch =
// their count, new tokens and context = their means, rounded), its prefill chunks another; a
// mixed batch costs the sum of the two (an upper bound: weights are streamed twice, where a
// fused chunked-prefill kernel streams them once). A group smaller than dp x attn_dp runs as
// dp x attn_dp sequences (every attention group needs one), an overestimate for tiny batches.
//
// Cache and bucketing (docs/systems.md): results are cached by (phase, batch, new tokens,
// context). Contexts up to kExactContext are exact; above, the engine runs only at grid points
// of kPointsPerDoubling geometric steps per doubling (rounded to whole tokens) and the result is
// interpolated linearly in context between the two neighbouring points. Iteration time is close
// to linear in context between neighbours (KV bytes and attention FLOPs are linear in it), so
// the error is small; tests/sim/system_cost_model_test.cpp measures it (< 1% on time).
#pragma once

#include <map>
#include <memory>
#include <tuple>

#include "sim/engine/system_engine.hpp"
#include "sim/serving/iteration_cost_model.hpp"

namespace scoville::engine {

struct IterationCacheOptions {
  bool enabled = true;
  int64_t exact_context = 256;      // contexts up to this are simulated exactly
  int64_t points_per_doubling = 8;  // grid density above exact_context
};

class SystemCostModel : public serving::IterationCostModel {
 public:
  SystemCostModel(SystemSetup setup, IterationCacheOptions cache = {});

  serving::IterationCost cost(const serving::IterationBatch& batch) const override;
  // The same for one uniform iteration (what cost() runs per phase group).
  SystemIterationResult run(const workloads::IterationShape& shape) const;

  int64_t engine_runs() const { return engine_runs_; }
  int64_t cache_hits() const { return cache_hits_; }
  const SystemEngine& engine() const { return *engine_; }

  // The grid points bracketing `context` (equal when it is exact or on the grid).
  std::pair<int64_t, int64_t> bracket(int64_t context) const;

 private:
  SystemIterationResult simulate(const workloads::IterationShape& shape) const;

  std::unique_ptr<SystemEngine> engine_;
  IterationCacheOptions options_;
  mutable std::map<std::tuple<int, int64_t, int64_t, int64_t>, SystemIterationResult> cache_;
  mutable int64_t engine_runs_ = 0;
  mutable int64_t cache_hits_ = 0;
};

// Linear interpolation of every field between two results (weight w of `b`).
SystemIterationResult interpolate(const SystemIterationResult& a, const SystemIterationResult& b,
                                  double w);

}  // namespace scoville::engine
