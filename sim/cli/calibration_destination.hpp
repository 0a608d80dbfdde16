// Where `scoville calibrate` writes what it fits. A fit is a what-if until someone decides it
// should become a system's default, so by default it goes to an output folder under the name the
// shipped file has (arch/systems/h200-hgx8.op-table.calibration.yaml ->
// calibration/h200-hgx8.op-table.calibration.yaml), and over the shipped file only when asked
// (--update-shipped), as tools/validation-report does when it refits the shipped overlays.
#pragma once

#include <string>

namespace scoville::cli {

struct CalibrationDestination {
  std::string folder = "calibration";  // --output-dir
  bool update_shipped = false;         // --update-shipped

  // Creates the output folder (nothing with --update-shipped); OutputError naming it when it
  // cannot be. Called before a fit, so that a bad folder fails before minutes of fitting.
  void prepare() const;
  // The path to write the file that ships at `shipped_path` to (prepares the folder).
  std::string path_for(const std::string& shipped_path) const;
  // Said after "# wrote PATH" when the file is not the shipped one: how to use it.
  std::string how_to_apply() const;
};

}  // namespace scoville::cli
