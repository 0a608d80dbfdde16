// Fitting efficiency knobs (efficiency_knobs.hpp) to measurements: deterministic coordinate
// descent, one knob at a time by golden-section search in log space inside the knob's bounds,
// repeated for a few sweeps, then a Nelder-Mead polish in the same coordinates (for knobs that
// trade off against each other). The objective is any function of the knobs (calibrate passes the
// mean absolute percentage error of its rows); no randomness, so the same rows give the same
// knobs bit for bit. A knob is only moved when the objective improves, so the result is never
// worse than the start.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/serving/efficiency_knobs.hpp"

namespace scoville::serving {

// Knob names: compute_efficiency.{gemm,attention,other,all}, bandwidth_efficiency.{gemm,
// attention,other,all} (".all" ties the three classes to one value), per_op_overhead,
// per_iteration_overhead and per_sequence_overhead (seconds).
struct KnobSpec {
  std::string name;
  double lo = 0, hi = 1;  // bounds of the search
  std::string unit;       // "" (a fraction of peak) or "s"
  std::string why;        // one line: the gap it stands for
};
const std::vector<KnobSpec>& knob_specs();
// Throws std::invalid_argument naming the known knobs when `name` is none of them.
const KnobSpec& knob_spec(const std::string& name);
void set_knob(EfficiencyKnobs& knobs, const std::string& name, double value);
double get_knob(const EfficiencyKnobs& knobs, const std::string& name);

struct FitOptions {
  int sweeps = 2;                 // coordinate passes over the knobs
  int golden_steps = 14;          // interval shrinks by 0.618^steps per knob and pass
  int simplex_evaluations = 120;  // Nelder-Mead polish afterwards (0: none)
  // Narrower bounds than knob_specs()' for some knobs (same unit; inside the generic range, else
  // fit_knobs throws std::invalid_argument): the per-stack fit keeps software knobs inside the
  // published ranges (sim/validation/stack_bounds.hpp). A knob not named keeps its generic bounds.
  std::vector<KnobSpec> bounds;
  const KnobSpec& spec(const std::string& name) const;  // the bounds in effect for `name`
};

struct FitResult {
  EfficiencyKnobs knobs;
  double before = 0;  // objective at the start
  double after = 0;   // objective at the result
  int evaluations = 0;
};

FitResult fit_knobs(const std::vector<std::string>& names, const EfficiencyKnobs& start,
                    const std::function<double(const EfficiencyKnobs&)>& objective,
                    const FitOptions& options = {});

// The same search over knobs of several knob sets at once (a knob of set i moves only that set):
// the per-stack fit's shared software knobs and each system's hardware knobs, fitted jointly,
// since they trade off (an HBM fraction against a per-sequence time) in ways a fit of one set at a
// time only crawls along.
struct KnobSlot {
  std::string name;  // a knob_specs() name
  size_t set = 0;    // which of the knob sets
};
struct JointFitResult {
  std::vector<EfficiencyKnobs> knobs;
  double before = 0, after = 0;
  int evaluations = 0;
};
JointFitResult fit_knob_sets(
    const std::vector<KnobSlot>& slots, const std::vector<EfficiencyKnobs>& start,
    const std::function<double(const std::vector<EfficiencyKnobs>&)>& objective,
    const FitOptions& options = {});

}  // namespace scoville::serving
