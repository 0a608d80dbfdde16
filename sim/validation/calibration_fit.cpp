#include "sim/validation/calibration_fit.hpp"

#include <algorithm>

#include "sim/base/error.hpp"

namespace scoville::validation {

std::vector<RowPrediction> RowSet::run(const serving::EfficiencyKnobs& knobs) {
  std::vector<RowPrediction> pred;
  for (RowSimulator& s : sims) pred.push_back(s.run(knobs));
  return pred;
}

namespace {

void build(RowSet& set, const std::vector<RowPlan>& plans, const engine::ServingHardware& hw,
           int64_t prompts_per_client) {
  for (const RowPlan& p : plans) {
    try {
      set.sims.emplace_back(p, hw, prompts_per_client);
      set.plans.push_back(p);
    } catch (const InputError& e) {
      set.infeasible.push_back(p.id + " (" + e.what() + ")");
    }
  }
}

}  // namespace

SystemRows system_rows(const std::vector<RowPlan>& plans, const std::string& system_name,
                       const engine::ServingHardware& hw, const CalibrationRequest& request,
                       bool build_held_out) {
  // The system's predictable rows (by id order), then the chosen ones. Only closed-loop points
  // at a published concurrency: a swept row's best point moves with the knobs (it is validated,
  // not fitted on).
  std::vector<RowPlan> candidates;
  for (const RowPlan& p : plans) {
    if (p.skipped.empty() && p.system_file == system_name && p.scenario == RowScenario::kPoint) {
      candidates.push_back(p);
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const RowPlan& x, const RowPlan& y) {
    return std::stoll("0" + x.id) < std::stoll("0" + y.id);
  });
  std::vector<RowPlan> chosen, held;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const bool take = request.rows == "all"    ? true
                      : request.rows == "half" ? i % 2 == 0
                                               : request.wanted_ids.count(candidates[i].id) > 0;
    (take ? chosen : held).push_back(candidates[i]);
  }
  SystemRows rows;
  for (const RowPlan& p : held) rows.held_out_ids.push_back(p.id);
  build(rows.fitted, chosen, hw, request.prompts_per_client);
  if (build_held_out) build(rows.held_out, held, hw, request.prompts_per_client);
  return rows;
}

SystemCalibration calibrate_system(const std::vector<RowPlan>& plans,
                                   const std::string& system_name,
                                   const engine::ServingHardware& hw,
                                   const CalibrationRequest& request) {
  SystemCalibration result;
  SystemRows rows = system_rows(plans, system_name, hw, request, false);
  result.held_out = rows.held_out_ids;
  result.infeasible = rows.fitted.infeasible;
  const std::vector<RowPlan>& fitted_plans = rows.fitted.plans;
  const std::vector<std::string>& held_out = result.held_out;
  if (fitted_plans.empty()) {
    throw InputError(SourceLocation{request.measurements, 0, 0}, "",
                     "no predictable row of " + system_name + " to fit (rows '" + request.rows +
                         "'); systems without measurements inherit a fitted sibling's overlay "
                         "(docs/calibration.md)");
  }
  auto predict = [&](const serving::EfficiencyKnobs& k) {
    std::vector<RowPrediction> pred = rows.fitted.run(k);
    if (request.on_evaluation) request.on_evaluation(pred.size());
    return pred;
  };
  result.fit = serving::fit_knobs(
      request.knobs, hw.efficiency,
      [&](const serving::EfficiencyKnobs& k) {
        return combined_log_error(fitted_plans, predict(k));
      },
      request.fit_options);
  const double mape_before = combined_mape(fitted_plans, predict(hw.efficiency));
  const double mape_after = combined_mape(fitted_plans, predict(result.fit.knobs));

  config::CalibrationOverlay& overlay = result.overlay;
  overlay.system = system_name;
  overlay.fidelity = engine::overlay_fidelity(request.fidelity);
  overlay.knobs = result.fit.knobs;
  config::CalibrationFit f;
  f.measurements = request.recorded();
  for (const RowPlan& p : fitted_plans) f.rows.push_back(p.id);
  f.held_out = held_out;
  f.knobs = request.knobs;
  f.objective =
      "least squares of ln(predicted / published) of throughput per chip and interactivity "
      "over the rows; reported as their mean absolute % error; prompts per client " +
      std::to_string(request.prompts_per_client) + "; " + engine::to_string(request.fidelity) +
      " fidelity";
  f.mape_before = mape_before;
  f.mape_after = mape_after;
  f.command = request.command;
  f.software = engine::software_label(hw);
  overlay.fit = f;
  return result;
}

}  // namespace scoville::validation
