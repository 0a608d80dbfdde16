// `scoville calibrate` as a library function: a system's software (and, at the roofline,
// efficiency) knobs fitted to its published measurement rows at one fidelity, as that fidelity's
// calibration overlay (sim/config/calibration_overlay.hpp). The fit starts from no overlay and
// minimises the squared log error of throughput per chip and interactivity over the chosen rows
// (sim/serving/knob_fit.hpp: deterministic coordinate descent, then Nelder-Mead), reported as
// MAPE; each row's engine is built once and re-priced per knob set.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "sim/config/calibration_overlay.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/knob_fit.hpp"
#include "sim/validation/measurement_rows.hpp"

namespace scoville::validation {

struct CalibrationRequest {
  std::string measurements;  // the CSV the rows come from (read)
  // The CSV as the written overlay names it (relative to the data root when it lies under it);
  // empty: `measurements`.
  std::string recorded_measurements;
  const std::string& recorded() const {
    return recorded_measurements.empty() ? measurements : recorded_measurements;
  }
  std::string rows = "half";         // all, half (every other row by id) or a list of ids
  std::set<std::string> wanted_ids;  // the ids when `rows` lists them
  std::vector<std::string> knobs;    // the knobs fitted (serving::knob_spec names)
  int64_t prompts_per_client = 4;
  serving::FitOptions fit_options;
  engine::ServingFidelity fidelity = engine::ServingFidelity::kOpTable;
  std::string command;  // the command line, recorded in the overlay
  // Told after each evaluation of the fit (every chosen row simulated once): progress.
  std::function<void(size_t rows)> on_evaluation;
};

struct SystemCalibration {
  config::CalibrationOverlay overlay;  // system, fidelity, fitted knobs and the fit record
  serving::FitResult fit;
  std::vector<std::string> held_out;    // row ids not fitted on
  std::vector<std::string> infeasible;  // "id (why)" of chosen rows that cannot run
};

// A set of rows with their engines built once (RowSimulator), re-priced per knob set.
struct RowSet {
  std::vector<RowPlan> plans;
  std::vector<RowSimulator> sims;
  std::vector<std::string> infeasible;  // "id (why)" of rows that cannot run
  std::vector<RowPrediction> run(const serving::EfficiencyKnobs& knobs);
};

// `system_name`'s closed-loop rows among `plans` (by id order) split by request.rows into those
// fitted on and those held out (engines built for the held-out ones only when
// `build_held_out`; their ids are always listed).
struct SystemRows {
  RowSet fitted, held_out;
  std::vector<std::string> held_out_ids;
};
SystemRows system_rows(const std::vector<RowPlan>& plans, const std::string& system_name,
                       const engine::ServingHardware& hw, const CalibrationRequest& request,
                       bool build_held_out);

// Fits `system_name`'s rows among `plans` on `hw` (resolved without an overlay). InputError when
// the system has no predictable row among those chosen.
SystemCalibration calibrate_system(const std::vector<RowPlan>& plans,
                                   const std::string& system_name,
                                   const engine::ServingHardware& hw,
                                   const CalibrationRequest& request);

}  // namespace scoville::validation
