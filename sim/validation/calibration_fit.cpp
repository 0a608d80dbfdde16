#include "sim/validation/calibration_fit.hpp"

#include <algorithm>

#include "sim/base/error.hpp"

namespace scoville::validation {

SystemCalibration calibrate_system(const std::vector<RowPlan>& plans,
                                   const std::string& system_name,
                                   const engine::ServingHardware& hw,
                                   const CalibrationRequest& request) {
  SystemCalibration result;
  std::vector<std::string>& held_out = result.held_out;
  std::vector<std::string>& infeasible = result.infeasible;
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
  std::vector<RowPlan> chosen;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const bool take = request.rows == "all"    ? true
                      : request.rows == "half" ? i % 2 == 0
                                               : request.wanted_ids.count(candidates[i].id) > 0;
    (take ? chosen.push_back(candidates[i]) : held_out.push_back(candidates[i].id));
  }
  std::vector<RowSimulator> sims;
  std::vector<RowPlan> fitted_plans;
  for (const RowPlan& p : chosen) {
    try {
      sims.emplace_back(p, hw, request.prompts_per_client);
      fitted_plans.push_back(p);
    } catch (const InputError& e) {
      infeasible.push_back(p.id + " (" + e.what() + ")");
    }
  }
  if (fitted_plans.empty()) {
    throw InputError(SourceLocation{request.measurements, 0, 0}, "",
                     "no predictable row of " + system_name + " to fit (rows '" + request.rows +
                         "'); systems without measurements inherit a fitted sibling's overlay "
                         "(docs/calibration.md)");
  }
  auto predict = [&](const serving::EfficiencyKnobs& k) {
    std::vector<RowPrediction> pred;
    for (RowSimulator& s : sims) pred.push_back(s.run(k));
    if (request.on_evaluation) request.on_evaluation(sims.size());
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
  f.measurements = request.measurements;
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
