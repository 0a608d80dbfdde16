// Stack calibration: the software knobs (per-op, per-iteration and per-sequence time beyond the
// stack file's own) that `scoville calibrate --per-stack` fitted once per serving stack over the
// rows of every system running it, kept beside the stack file:
// arch/software/<stack>.calibration.yaml (roofline) and <stack>.op-table.calibration.yaml.
//
//   stack_calibration:
//     stack: tensorrt-llm        # the arch/software file it belongs to
//     fidelity: op-table         # the fidelity fitted at (roofline or op-table)
//     knobs:
//       per_op_overhead: 0.8 us
//       per_iteration_overhead: 40 us
//       per_sequence_overhead: 1.5 us
//     fit: {measurements, systems, rows, held_out, knobs, bounds, objective, mape_before,
//           mape_after, held_out_mape_before, held_out_mape_after, command}
//
// Software time belongs to the stack, not to the GPU: wherever the stack runs (inferencex, serve,
// validate, run --system, the Jalapeño study), these three knobs replace the overheads of the
// system's own overlay, whose fractions (hardware knobs) stay (sim/engine/serving_hardware.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/serving/efficiency_knobs.hpp"

namespace scoville::config {

struct StackCalibrationFit {
  std::string measurements;
  std::vector<std::string> systems;   // the systems whose rows were fitted on
  std::vector<std::string> rows;      // ids fitted on
  std::vector<std::string> held_out;  // ids of those systems' rows of the stack not fitted on
  std::vector<std::string> knobs;     // the knobs fitted
  std::string bounds;                 // text: each knob's bounds and their source
  std::string objective;
  double mape_before = 0, mape_after = 0;                    // fitted rows (%)
  double held_out_mape_before = 0, held_out_mape_after = 0;  // held-out rows (%)
  std::string command;
};

struct StackCalibration {
  std::string file;
  std::string stack;
  std::string fidelity = "roofline";
  Duration per_op, per_iteration, per_sequence;
  std::optional<StackCalibrationFit> fit;

  // Puts the stack's software knobs into `knobs` (the fractions are left as they are).
  void apply(serving::EfficiencyKnobs& knobs) const;
  // As apply, but each software knob `knobs` already sets (non-zero) is kept: an overlay given
  // by hand (`inferencex --calibration FILE`) that names its own software time is the more
  // specific and wins over the stack's. Returns the names of the knobs kept.
  std::vector<std::string> apply_where_unset(serving::EfficiencyKnobs& knobs) const;
};

// Parses one stack calibration. Bad content -> InputError located at file, line and key.
StackCalibration parse_stack_calibration(const std::string& path);
StackCalibration parse_stack_calibration_string(const std::string& yaml,
                                                const std::string& display_name);

// The stack calibration beside the stack file `software_file` at `fidelity` (the path
// overlay_path_for gives), if there is one. A `fidelity:` or `stack:` other than the file name
// says is an InputError.
std::optional<StackCalibration> find_stack_calibration(const std::string& software_file,
                                                       const std::string& fidelity);

// The file as YAML, every number tagged.
std::string stack_calibration_yaml(const StackCalibration& calibration);

}  // namespace scoville::config
