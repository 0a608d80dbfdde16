// What a serving scenario (workloads/scenarios/*.yaml, sim/config/scenario_loader) gives
// `scoville plan --scenario`: its requests as one load of the search, and its SLOs as the
// search's latency limits. The command's flags override each (sim/cli/plan_command.cpp).
#pragma once

#include <optional>
#include <string>

#include "sim/config/scenario_loader.hpp"
#include "sim/engine/plan_search.hpp"
#include "workloads/requests/request_pattern.hpp"

namespace scoville::engine {

// The percentile a scenario's slo.ttft and slo.tpot limit: 99, as MLPerf's server limits the
// shipped scenarios quote are set ([SPEC] MLPerf Inference rules: TTFT and TPOT at p99).
inline constexpr int kScenarioSloPercentile = 99;

// The name plan gives a load in its tables: "N=64" (closed loop), "rate=4/s" (Poisson),
// "gamma rate=4/s" (bursty), "trace".
std::string plan_load_label(const workloads::RequestPattern& requests);

// The scenario's requests as they are, as one load.
PlanLoad scenario_load(const config::ServingStudySpec& spec);

// The scenario's slo.ttft / slo.tpot at kScenarioSloPercentile; nullopt where it has none.
std::optional<LatencyLimit> scenario_ttft_limit(const config::ServingStudySpec& spec);
std::optional<LatencyLimit> scenario_tpot_limit(const config::ServingStudySpec& spec);

}  // namespace scoville::engine
