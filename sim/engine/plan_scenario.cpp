#include "sim/engine/plan_scenario.hpp"

#include <sstream>

namespace scoville::engine {

std::string plan_load_label(const workloads::RequestPattern& requests) {
  std::ostringstream label;
  switch (requests.kind) {
    case workloads::ArrivalKind::kClosedLoop:
      label << "N=" << requests.concurrency;
      break;
    case workloads::ArrivalKind::kPoisson:
      label << "rate=" << requests.rate << "/s";
      break;
    case workloads::ArrivalKind::kTrace:
      label << "trace";
      break;
    case workloads::ArrivalKind::kGamma:
      label << "gamma rate=" << requests.rate << "/s";
  }
  return label.str();
}

PlanLoad scenario_load(const config::ServingStudySpec& spec) {
  return PlanLoad{plan_load_label(spec.requests), spec.requests};
}

std::optional<LatencyLimit> scenario_ttft_limit(const config::ServingStudySpec& spec) {
  if (!spec.metrics.slo_ttft) return std::nullopt;
  return LatencyLimit{*spec.metrics.slo_ttft, kScenarioSloPercentile};
}

std::optional<LatencyLimit> scenario_tpot_limit(const config::ServingStudySpec& spec) {
  if (!spec.metrics.slo_tpot) return std::nullopt;
  return LatencyLimit{*spec.metrics.slo_tpot, kScenarioSloPercentile};
}

}  // namespace scoville::engine
