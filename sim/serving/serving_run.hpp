// The serving layer's entry point for the CLI (`scoville serve`, `scoville inferencex`): a
// scenario, the hardware's cost model and a seed in; per-request records, run totals and the
// aggregated metrics out. Same inputs, bit-identical outputs.
#pragma once

#include <cstdint>

#include "sim/serving/continuous_batching_scheduler.hpp"
#include "sim/serving/iteration_cost_model.hpp"
#include "sim/serving/serving_config.hpp"
#include "sim/serving/serving_metrics.hpp"

namespace scoville::serving {

struct ServingResult {
  workloads::RequestPlan plan;
  ServingTrace trace;  // records and scheduler totals
  ServingMetrics metrics;
};

// Validates the scenario (InputError on bad fields), generates the requests from `seed`, serves
// them and computes the metrics. `observer` (optional) watches the scheduler; results are the
// same with or without it.
ServingResult run_serving(const ServingScenario& scenario, const IterationCostModel& cost_model,
                          uint64_t seed, SchedulerObserver* observer = nullptr);

}  // namespace scoville::serving
