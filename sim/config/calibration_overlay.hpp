// Calibration overlays: the efficiency knobs `scoville calibrate` fitted for a system, kept in
// a file next to the system file (arch/systems/<name>.calibration.yaml) so that the hardware
// numbers are never edited. The serving layer applies the overlay of the system file it runs on
// (sim/cli/serving_common.cpp) unless --no-calibration; every output names the overlay applied.
//
//   calibration:
//     system: h200-hgx8               # the system file it belongs to
//     fidelity: op-table              # the fidelity fitted at: roofline (default) or op-table
//     knobs:                          # serving::EfficiencyKnobs (efficiency_knobs.hpp)
//       compute_efficiency: {gemm: 0.6, attention: 0.6, other: 1}
//       bandwidth_efficiency: {gemm: 0.8, attention: 0.8, other: 0.8}
//       per_op_overhead: 1 us
//       per_iteration_overhead: 2 ms
//       per_sequence_overhead: 1 us  # optional (0)
//     fit: {measurements, rows, held_out, knobs, objective, mape_before, mape_after, command}
//
// A system without measurements of its own does not get fitted knobs: its overlay says
// `inherits: <system>` instead of `knobs:` and uses that system's knobs (e.g. gb300-nvl72 from
// gb200-nvl72), stated in every output that applies it. An inheriting overlay may replace some
// of them under `overrides:` (same keys as `knobs:`; a fraction map may name only some classes),
// each value with its own source, e.g. a compute fraction anchored on a published phase
// measurement (docs/calibration.md). Inheritance follows chains (gb300 -> gb200 -> b200-hgx8),
// applying the overrides from the fitted end down; a cycle is an error.
//
// Knobs belong to the fidelity they were fitted at: at the roofline a fraction is what real
// kernels reach of the chip's peaks; at the op table (the chip model prices each op) it is what
// they reach of the chip model's time, and the overheads are the software the chip model does not
// see. So each fidelity has its own overlay beside the system file: <name>.calibration.yaml
// (roofline) and <name>.op-table.calibration.yaml, and `inherits:` stays within one fidelity.
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
  // The serving stack (arch/software) the rows were predicted with while fitting: the knobs
  // hold what that stack's file does not (optional key; empty in overlays written before).
  std::string software;
};

// Knob values an inheriting overlay replaces; unset ones keep the inherited value.
struct KnobOverrides {
  std::array<std::optional<double>, serving::kOpClassCount> compute, bandwidth;
  std::optional<Duration> per_op, per_iteration, per_sequence;

  bool empty() const;
  void apply(serving::EfficiencyKnobs& knobs) const;
};

struct CalibrationOverlay {
  std::string file;                   // this overlay
  std::string system;                 // the system it belongs to
  std::string fidelity = "roofline";  // the fidelity its knobs were fitted at (kOverlayFidelities)
  std::string inherits;               // non-empty: the system whose knobs this one uses
  std::string why;                    // text: why inherited (or a note on the fit)
  std::string knobs_file;   // the overlay the knobs were read from (file, or the fitted ancestor)
  KnobOverrides overrides;  // this file's own `overrides:` (inheriting overlays only)
  std::vector<std::string> override_files;  // the overlays whose overrides were applied, in order
  serving::EfficiencyKnobs knobs;           // the knobs in effect (inherited, then overridden)
  std::optional<CalibrationFit> fit;        // fitted overlays only

  // "h200-hgx8.calibration.yaml" or "gb300-nvl72.calibration.yaml (knobs of b200-hgx8...,
  // overrides of gb200-nvl72...)".
  std::string describe() const;
};

// The fidelities an overlay can belong to: "roofline" and "op-table".
bool is_overlay_fidelity(const std::string& fidelity);

// <dir>/<stem>.calibration.yaml for <dir>/<stem>.yaml at the roofline;
// <dir>/<stem>.<fidelity>.calibration.yaml at another fidelity.
std::string overlay_path_for(const std::string& system_file,
                             const std::string& fidelity = "roofline");

// Parses one overlay (its `inherits:` is not followed). Bad content -> InputError located at
// file, line and key.
CalibrationOverlay parse_overlay(const std::string& path);
CalibrationOverlay parse_overlay_string(const std::string& yaml, const std::string& display_name);

// The overlay of a system file at `fidelity`, if one exists next to it, with `inherits:`
// followed (to the overlay_path_for of <dir>/<inherits>.yaml at the same fidelity, and on up the
// chain to an overlay with knobs of its own). An overlay whose `fidelity:` is not the one its
// name says is an InputError.
std::optional<CalibrationOverlay> find_overlay(const std::string& system_file,
                                               const std::string& fidelity = "roofline");

// One overlay file with its `inherits:` followed as find_overlay does; a missing file is an
// InputError. `scoville inferencex --calibration FILE` applies it to any system (e.g. knobs
// fitted on one chip transferred to another that has no measurements).
CalibrationOverlay load_overlay(const std::string& path);

// The overlay as YAML (every number tagged, so arch/ stays source-tagged).
std::string overlay_yaml(const CalibrationOverlay& overlay);

}  // namespace scoville::config
