// One point of a serving sweep (a mapping at a concurrency) with the closed-loop checks made from
// its request records, and the Pareto marking InferenceX draws its curves from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/serving/serving_run.hpp"
#include "workloads/mapping/pool_mapping.hpp"

namespace scoville::serving {

// One serving run, with what a closed-loop check needs from the records.
struct ServingPoint {
  std::string mapping;  // e.g. "tp8" or "tp4-ep4-attn_dp4"
  int64_t tp = 1, ep = 1, attn_dp = 1, chips = 1;
  int64_t concurrency = 0;  // closed loop: N; otherwise max_concurrency (0: none)
  serving::ServingResult result;
  int64_t max_in_flight = 0;    // most requests between send and finish at any time
  double mean_in_flight = 0.0;  // time average over the benchmark window
  double littles_law_n = 0.0;   // request_throughput x mean E2EL (s)
  bool pareto = false;
};

std::string mapping_label(const workloads::MappingConfig& mapping);
void fill_point_stats(ServingPoint& point);
// Marks the points not dominated in (tput_per_chip, intvty), InferenceX's rule.
void mark_pareto(std::vector<ServingPoint>& points);

}  // namespace scoville::serving
