// The InferenceX benchmark on simulated hardware as a library function (`scoville inferencex`,
// the Jalapeño study, any other front end): the mappings a sweep tries (one given, or the search
// over TP / EP / attention-DP and prefill:decode splits), and the closed-loop sweep of those
// mappings over concurrencies, priced by the serving engines of sim/engine/serving_engines.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/scheduler_observer.hpp"
#include "sim/serving/serving_point.hpp"
#include "sim/serving/serving_run.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"

namespace scoville::engine {

// Which mappings a sweep runs: a mapping file, one pool of tp chips, or the search.
struct MappingChoice {
  std::string mapping_file;  // a mapping YAML (one pool, or prefill and decode)
  bool search = false;       // every feasible TP / EP / attention-DP mapping and pool split
  int64_t tp = 0;            // 0: all `chips`
  int64_t ep = 1;
  int64_t attn_dp = 1;
};

// The mappings of `choice` on `chips` chips (docs/serving.md, "Mapping search"): the search tries
// tp = 1, 2, 4, ... up to chips, with ep in {1, tp} for an MoE model and attention-DP in {1, tp},
// the widest EP dividing both the experts and tp with attention-DP over all chips, and the
// disaggregated splits of disaggregated_mappings.
std::vector<workloads::MappingConfig> sweep_mappings(const MappingChoice& choice,
                                                     const workloads::ModelConfig& model,
                                                     int64_t chips);

// Disaggregated candidates: decode pools of D = the largest power of two up to chips / 2 and
// D / 2, each with prefill pools of D, D / 2 and D / 4 chips; each pool tensor parallel over its
// chips (expert parallel too for MoE), the decode pool with and without attention-DP.
std::vector<workloads::MappingConfig> disaggregated_mappings(bool moe, int64_t chips);

// InferenceX's closed loop (docs/serving.md): per concurrency N, N clients each sending
// prompts_per_client requests of lengths uniform in [range_ratio, 1] x nominal.
struct ClosedLoopLoad {
  int64_t isl = 0;
  int64_t osl = 0;
  double range_ratio = 0.8;
  int64_t prompts_per_client = 10;
  std::vector<int64_t> concurrency;
  int64_t max_num_seqs = 0;  // 0: the concurrency
  uint64_t seed = 1;
};

// What a front end watches in a sweep: a progress step per point (run or skipped), and an
// optional observer of one point's scheduler (a timeline recorder), told when that point ends.
class SweepHooks {
 public:
  virtual ~SweepHooks() = default;
  virtual void step(const std::string& /*label*/) {}
  // The observer of the point (mapping label, concurrency); null: none.
  virtual serving::SchedulerObserver* observer(const std::string& /*label*/,
                                               int64_t /*concurrency*/) {
    return nullptr;
  }
  // Called after an observed point ran, with its scenario and result.
  virtual void observed(const serving::ServingScenario& /*scenario*/,
                        const serving::ServingPoint& /*point*/) {}
};

struct SweepResult {
  std::vector<serving::ServingPoint> points;  // Pareto-marked
  std::vector<std::string> skipped;           // "label[ at concurrency N]: why"
};

// Runs every mapping at every concurrency. `cycle_system`: a system file to price on the SystemC
// system engine (one co-located pool); empty: the roofline / op-table engines of `hw`.
// `skip_infeasible`: an infeasible mapping or point is listed in `skipped` (the search);
// otherwise its InputError propagates. InputError when no point ran.
SweepResult run_closed_loop_sweep(const ServingHardware& hw, const std::string& cycle_system,
                                  const workloads::ModelConfig& model,
                                  const std::vector<workloads::MappingConfig>& mappings,
                                  const serving::SchedulerConfig& scheduler,
                                  const ClosedLoopLoad& load, bool skip_infeasible,
                                  SweepHooks& hooks);

}  // namespace scoville::engine
