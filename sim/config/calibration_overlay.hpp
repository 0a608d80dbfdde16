// Calibration overlays: the efficiency knobs `scoville calibrate` fitted for a system, kept in
// a file next to the system file (arch/systems/<name>.calibration.yaml) so that the hardware
// numbers are never edited. The serving layer applies the overlay of the system file it runs on
// (sim/cli/serving_common.cpp) unless --no-calibration; every output names the overlay applied.
//
//   calibration:
//     system: h200-hgx8               # the system file it belongs to
//     knobs:                          # serving::EfficiencyKnobs (efficiency_knobs.hpp)
//       compute_efficiency: {gemm: 0.6, attention: 0.6, other: 1}
//       bandwidth_efficiency: {gemm: 0.8, attention: 0.8, other: 0.8}
//       per_op_overhead: 1 us
//       per_iteration_overhead: 2 ms
//     fit: {measurements, rows, held_out, knobs, objective, mape_before, mape_after, command}
//
// A system without measurements of its own does not get fitted knobs: its overlay says
// `inherits: <system>` instead of `knobs:` and uses that system's knobs (e.g. gb300-nvl72 from
// gb200-nvl72), stated in every output that applies it. An inheriting overlay may replace some
// of them under `overrides:` (same keys as `knobs:`; a fraction map may name only some classes),
// each value with its own source, e.g. a compute fraction anchored on a published phase
// measurement (docs/calibration.md). Inheritance follows chains (gb300 -> gb200 -> b200-hgx8),
// applying the overrides from the fitted end down; a cycle is an error.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sim/serving/efficiency_knobs.hpp"

namespace scoville::config {

// Provenance of fitted knobs: what they were fitted on and how well.
struct CalibrationFit {
  std::string measurements;                // the CSV, as given
  std::vector<std::string> rows;           // ids fitted on
  std::vector<std::string> held_out;       // ids of the system's predictable rows left out
  std::vector<std::string> knobs;          // names of the knobs fitted (the others stay default)
  std::string objective;                   // what was minimised
  double mape_before = 0, mape_after = 0;  // objective (%) at the default knobs and fitted
  std::string command;                     // the command line that wrote the file
};

// Knob values an inheriting overlay replaces; unset ones keep the inherited value.
struct KnobOverrides {
  std::array<std::optional<double>, serving::kOpClassCount> compute, bandwidth;
  std::optional<Duration> per_op, per_iteration;

  bool empty() const;
  void apply(serving::EfficiencyKnobs& knobs) const;
};

struct CalibrationOverlay {
  std::string file;         // this overlay
  std::string system;       // the system it belongs to
  std::string inherits;     // non-empty: the system whose knobs this one uses
  std::string why;          // text: why inherited (or a note on the fit)
  std::string knobs_file;   // the overlay the knobs were read from (file, or the fitted ancestor)
  KnobOverrides overrides;  // this file's own `overrides:` (inheriting overlays only)
  std::vector<std::string> override_files;  // the overlays whose overrides were applied, in order
  serving::EfficiencyKnobs knobs;           // the knobs in effect (inherited, then overridden)
  std::optional<CalibrationFit> fit;        // fitted overlays only

  // "h200-hgx8.calibration.yaml" or "gb300-nvl72.calibration.yaml (knobs of b200-hgx8...,
  // overrides of gb200-nvl72...)".
  std::string describe() const;
};

// <dir>/<stem>.calibration.yaml for <dir>/<stem>.yaml.
std::string overlay_path_for(const std::string& system_file);

// Parses one overlay (its `inherits:` is not followed). Bad content -> InputError located at
// file, line and key.
CalibrationOverlay parse_overlay(const std::string& path);
CalibrationOverlay parse_overlay_string(const std::string& yaml, const std::string& display_name);

// The overlay of a system file, if one exists next to it, with `inherits:` followed (to
// <dir>/<inherits>.calibration.yaml, and on up the chain to an overlay with knobs of its own).
std::optional<CalibrationOverlay> find_overlay(const std::string& system_file);

// One overlay file with its `inherits:` followed as find_overlay does; a missing file is an
// InputError. `scoville inferencex --calibration FILE` applies it to any system (e.g. knobs
// fitted on one chip transferred to another that has no measurements).
CalibrationOverlay load_overlay(const std::string& path);

// The overlay as YAML (every number tagged, so arch/ stays source-tagged).
std::string overlay_yaml(const CalibrationOverlay& overlay);

}  // namespace scoville::config
