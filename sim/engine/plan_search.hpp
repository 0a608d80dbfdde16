// `scoville plan` as a library function: the search for the configurations that serve a load
// best within TTFT / TPOT limits. Every mapping of the InferenceX search (sweep_mappings: TP,
// EP, attention-DP, and aggregated or disaggregated prefill / decode pools) at every batch limit
// (max_num_seqs) is served at every load (a closed loop of N clients, Poisson arrivals at a rate,
// or a request trace) by the serving engines; a point meets the limits when its TTFT and TPOT
// percentiles are within them, and its goodput is the output tokens per second of the requests
// that meet both limits (vLLM's --goodput, per request). Points that meet the limits are ranked
// per load by goodput per chip.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/serving_point.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"
#include "workloads/requests/request_pattern.hpp"

namespace scoville::engine {

// A latency limit on one percentile of the requests: 50 (median), 90 or 99.
struct LatencyLimit {
  Duration limit;
  int percentile = 99;
};

// One load the search serves: requests.kind says which (kClosedLoop: requests.concurrency
// clients; kPoisson: requests.rate; kTrace: a replay), `label` names it in tables.
struct PlanLoad {
  std::string label;  // "N=64", "rate=4/s", "trace"
  workloads::RequestPattern requests;
};

struct PlanQuery {
  std::vector<workloads::MappingConfig> mappings;  // sweep_mappings(search) of the system
  std::vector<PlanLoad> loads;
  // Batch limits tried (max_num_seqs per pool); a closed loop of N clients takes min(limit, N),
  // each distinct value once.
  std::vector<int64_t> max_batch;
  serving::SchedulerConfig scheduler;  // its max_num_seqs is set per point
  LatencyLimit ttft, tpot;
  uint64_t seed = 1;
};

// One (mapping, batch limit, load) point of the search.
struct PlanPoint {
  serving::ServingPoint point;                  // its metrics carry the goodput of the limits
  size_t load = 0;                              // index into PlanQuery::loads
  int64_t max_batch = 0;                        // the limit in effect
  int64_t prefill_chips = 0, decode_chips = 0;  // disaggregated; 0 when co-located
  double ttft_ms = 0.0, tpot_ms = 0.0;          // at the limits' percentiles
  double goodput = 0.0;                         // output tok/s of requests meeting both limits
  double goodput_per_chip = 0.0;
  double goodput_per_kw = 0.0;  // per chip x 1000 / TDP per chip (W)
  bool meets = false;           // both percentiles within their limits
  int64_t rank = 0;             // 1 = best of its load among those that meet; 0: does not meet
  bool pareto = false;          // on the frontier of (interactivity, goodput per chip)
};

struct PlanResult {
  std::vector<PlanPoint> points;     // in search order: mapping, load, batch limit
  std::vector<std::string> skipped;  // infeasible mappings or points, with why
};

// The value of a distribution at `percentile` (50, 90, 99); std::invalid_argument otherwise.
double at_percentile(const serving::Distribution& d, int percentile);

// Runs the search. `step` is told each point done (its label). InputError when no mapping is
// feasible at all; points that miss the limits are kept with meets = false.
PlanResult plan_search(const ServingHardware& hw, const workloads::ModelConfig& model,
                       const PlanQuery& query, const std::function<void(const std::string&)>& step);

// How many points plan_search runs (for a progress total).
int64_t plan_point_count(const PlanQuery& query);

// Ranks the points that meet the limits within each load (goodput per chip, then lower TPOT,
// then search order) and marks the Pareto frontier over all of them. Pure; plan_search calls it.
void rank_plan(std::vector<PlanPoint>& points);

}  // namespace scoville::engine
