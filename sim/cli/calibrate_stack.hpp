// `scoville calibrate --per-stack`: the serving stacks' software knobs fitted over the rows of
// every given system that runs each stack (sim/validation/stack_fit.hpp), written as
// <stack>[.op-table].calibration.yaml (beside the stack file in arch/software with
// --update-shipped, else in the output folder), and each system's hardware knobs, when asked
// for, as its overlay with no overheads of its own, written the same way.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/cli/calibration_destination.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/validation/calibration_fit.hpp"

namespace scoville::cli {

struct StackCalibrateArgs {
  std::vector<std::string> systems;        // as given to --system
  std::string software;                    // --software (config::kSystemSoftware: each row's)
  std::vector<std::string> system_knobs;   // hardware knobs per system
  validation::CalibrationRequest request;  // rows, software knobs, options, fidelity, command
  bool op_cache = true, quiet = false, dry_run = false;
  std::string output;  // the stack calibration's path (one stack only); empty: by destination
  CalibrationDestination destination;  // where the stacks' files and systems' overlays go
};

int calibrate_per_stack(const StackCalibrateArgs& args, std::ostream& out);

}  // namespace scoville::cli
