// `scoville plan`'s result (sim/engine/plan_search.hpp) as the ranked terminal table and the
// /plan results table (HDF5 or CSV through sim/output/table_file.hpp): one row per point of the
// search, those that meet the limits ranked within their load.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "sim/engine/plan_search.hpp"
#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// Per load: how many points met the limits, and the best `top` of them, ranked.
void print_plan_table(std::ostream& out, const engine::PlanQuery& query,
                      const engine::PlanResult& result, int64_t top);

// Every point: identity (load, mapping, pools, batch limit), the latencies at the limits'
// percentiles (s), goodput (output tok/s, per chip and per kW of TDP), throughput, interactivity,
// meets (0/1), rank (0: does not meet) and pareto (0/1).
Table plan_table(const engine::PlanQuery& query, const engine::PlanResult& result);

// Why nothing met the limits: the lowest TTFT and TPOT any point reached at the limits'
// percentiles, and where. Empty when a point meets them.
std::string plan_miss_summary(const engine::PlanQuery& query, const engine::PlanResult& result);

}  // namespace scoville::output
