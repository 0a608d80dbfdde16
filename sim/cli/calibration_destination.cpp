#include "sim/cli/calibration_destination.hpp"

#include <filesystem>
#include <system_error>

#include "sim/base/error.hpp"

namespace scoville::cli {

void CalibrationDestination::prepare() const {
  if (update_shipped) return;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder)) {
    throw OutputError("--output-dir: cannot create the folder '" + folder +
                      "': " + (ec ? ec.message() : std::string("a file of that name is there")));
  }
}

std::string CalibrationDestination::path_for(const std::string& shipped_path) const {
  if (update_shipped) return shipped_path;
  prepare();
  return (std::filesystem::path(folder) / std::filesystem::path(shipped_path).filename()).string();
}

std::string CalibrationDestination::how_to_apply() const {
  if (update_shipped) return "";
  return " (not the shipped file: fit again with --update-shipped to make it the default; a "
         "system's overlay also applies with `inferencex --calibration FILE`)";
}

}  // namespace scoville::cli
