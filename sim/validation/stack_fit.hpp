// `scoville calibrate --per-stack` as a library function: one set of software knobs
// (per_op_overhead, per_iteration_overhead, per_sequence_overhead) fitted over the rows of every
// system that runs a serving stack, inside the published ranges (stack_bounds.hpp), written as
// the stack's calibration (sim/config/stack_calibration.hpp). Each system may keep hardware knobs
// of its own (e.g. its HBM fraction at the roofline), fitted jointly with the shared software
// knobs (serving::fit_knob_sets) over the pooled rows. Software time belongs to the stack, so
// the same knobs must serve every GPU; a per-system fit lets each system's fixed overhead absorb
// what its rows' batch sizes happen to need (docs/calibration.md, "Per-stack fit").
#pragma once

#include <string>
#include <vector>

#include "sim/config/calibration_overlay.hpp"
#include "sim/config/stack_calibration.hpp"
#include "sim/validation/calibration_fit.hpp"

namespace scoville::validation {

// One system's part of a stack fit.
struct StackSystem {
  std::string name;                   // arch/systems name
  const engine::ServingHardware* hw;  // resolved on the stack, without any overlay
  serving::EfficiencyKnobs before;    // the knobs in effect before the fit (its overlays)
};

struct StackFitRequest {
  std::string stack;
  CalibrationRequest rows;                // rows, knobs (the shared software knobs), options
  std::vector<std::string> system_knobs;  // hardware knobs fitted per system (may be empty)
};

// MAPE of throughput and of interactivity (%) over a set of rows, each term apart.
struct RowErrors {
  double throughput = 0, intvty = 0, combined = 0;
  int rows = 0;
};
RowErrors row_errors(const std::vector<RowPlan>& plans, const std::vector<RowPrediction>& pred);

struct StackSystemResult {
  std::string name;
  serving::EfficiencyKnobs knobs;  // its hardware knobs with the stack's software knobs
  RowErrors fitted_before, fitted_after, held_before, held_after;
  std::vector<std::string> rows, held_out, infeasible;
};

struct StackFitResult {
  config::StackCalibration calibration;  // the shared software knobs and the fit record
  std::vector<StackSystemResult> systems;
  RowErrors fitted_before, fitted_after, held_before, held_after;  // over every system's rows
  int evaluations = 0;
};

// InputError when no system has a predictable row to fit.
StackFitResult fit_stack(const std::vector<RowPlan>& plans, const std::vector<StackSystem>& systems,
                         const StackFitRequest& request);

// A system's overlay holding only its hardware knobs of a stack fit (overheads zero: the stack's
// calibration carries them).
config::CalibrationOverlay hardware_overlay(const StackSystemResult& system,
                                            const StackFitRequest& request,
                                            const std::string& software);

}  // namespace scoville::validation
