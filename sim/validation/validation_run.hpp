// `scoville validate` as a library function: every measurement row planned (measurement_rows.hpp)
// and predicted at a fidelity with the system's calibration overlay for it, each prediction marked
// as fitted on or held out, and the errors summarised as MAPE per system, model and fit set, so
// that fit quality is never sold as prediction.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/software_profile.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/validation/concurrency_sweep.hpp"
#include "sim/validation/framework_stacks.hpp"
#include "sim/validation/measurement_rows.hpp"

namespace scoville::validation {

struct Outcome {
  validation::RowPlan plan;
  validation::RowPrediction predicted;
  std::string set;  // "fit" (an overlay was fitted on it), "held-out", or "" (no fitted overlay)
  std::string calibration;
  std::vector<SweptPoint> sweep;  // a swept row's points (plan.scenario not kPoint)
  std::string stack;         // the serving stack it was predicted with ("none": hardware alone)
  std::string stack_source;  // "framework", "system" (its framework maps to none) or "--software"
};

// Mean absolute percentage errors over a group of predicted rows.
struct Errors {
  double tput_sum = 0, intvty_sum = 0;
  int tput_n = 0, intvty_n = 0;
  void add(const Outcome& o);
  double tput() const { return tput_n ? tput_sum / tput_n : 0.0; }
  double intvty() const { return intvty_n ? intvty_sum / intvty_n : 0.0; }
};

struct ValidationSettings {
  // config::kSystemSoftware: each row on the stack its framework maps to
  // (workloads/measurements/framework-stacks.csv), else its system's own; otherwise this stack
  // (name or file) or config::kNoSoftware for every row.
  std::string software = config::kSystemSoftware;
  int64_t prompts_per_client = 10;
  bool calibration = true;  // apply each system's overlay for the fidelity
  engine::ServingFidelity fidelity = engine::ServingFidelity::kOpTable;
  bool op_cache = true;  // the persistent op cache (op-table fidelity)
  // Told after each row (predicted or skipped): progress.
  std::function<void(const RowPlan& row)> on_row;
};

// Predicts every row of `plans` that was not skipped; a row that cannot run gets its reason in
// plan.skipped ("infeasible: ..."). Every system is resolved before any row runs: a broken system
// or overlay file stops the run with its InputError instead of marking rows infeasible.
std::vector<Outcome> validate_rows(const std::vector<RowPlan>& plans,
                                   const ValidationSettings& settings);

// The stack a row is predicted with and why ("framework", "system" or "--software"): with
// `requested` config::kSystemSoftware, the rules' stack for its framework on a system whose own
// stack is `system_stack` (a name; empty: none), else that; otherwise `requested`.
std::pair<std::string, std::string> row_stack(const std::string& requested,
                                              const std::vector<FrameworkStackRule>& rules,
                                              const std::string& framework,
                                              const std::string& system_stack);

// Summaries: by system, by model, by stack, by fit set and over all, each over every predicted
// row.
std::vector<std::pair<std::string, std::map<std::string, Errors>>> summaries(
    const std::vector<Outcome>& outcomes);

}  // namespace scoville::validation
