// The serving engines of a mapping: the iteration cost model (the roofline with the op table
// behind it, or the SystemC system engine at the cycle fidelity) and the ServingSystem's pools
// (co-located, or prefill and decode with the KV handed over the network).
#pragma once

#include <memory>
#include <string>

#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/iteration_cost_model.hpp"
#include "sim/serving/serving_run.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"

namespace scoville::engine {

// The cost model and the ServingSystem pools for a mapping (one pool: co-located; prefill and
// decode: disaggregated, KV handed over the network). Throws InputError when infeasible.
struct ServingEngine {
  std::unique_ptr<serving::IterationCostModel> cost;
  serving::ServingSystem system;
};
ServingEngine make_engine(const ServingHardware& hw, const workloads::ModelConfig& model,
                          const workloads::MappingConfig& mapping,
                          const serving::SchedulerConfig& scheduler);
// The cycle fidelity: one co-located pool priced by engine::SystemCostModel (the SystemC system
// engine with its iteration cache) on the system file `system`, with hw's chip and software
// overheads (those the roofline uses, so the two levels price the same stack). The KV capacity
// is the roofline's (serving::pool_kv_capacity_blocks). SystemC elaborates once per process:
// build one before any simulation and reuse it.
ServingEngine make_cycle_engine(const ServingHardware& hw, const std::string& system,
                                const workloads::ModelConfig& model,
                                const workloads::PoolMapping& pool,
                                const serving::SchedulerConfig& scheduler);

}  // namespace scoville::engine
