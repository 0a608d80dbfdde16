#include "sim/serving/serving_run.hpp"

namespace scoville::serving {

ServingResult run_serving(const ServingScenario& scenario, const IterationCostModel& cost_model,
                          uint64_t seed, SchedulerObserver* observer) {
  validate(scenario);
  ServingResult result;
  result.plan = workloads::make_request_plan(scenario.workload, seed);
  result.trace =
      ContinuousBatchingScheduler(scenario.system, cost_model).run(result.plan, seed, observer);
  result.metrics =
      compute_metrics(result.trace.records, result.trace.stats, scenario.system, scenario.metrics);
  return result;
}

}  // namespace scoville::serving
