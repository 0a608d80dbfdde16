#include "sim/cli/calibration_destination.hpp"

#include <filesystem>

namespace scoville::cli {

std::string CalibrationDestination::path_for(const std::string& shipped_path) const {
  if (update_shipped) return shipped_path;
  std::filesystem::create_directories(folder);
  return (std::filesystem::path(folder) / std::filesystem::path(shipped_path).filename()).string();
}

std::string CalibrationDestination::how_to_apply() const {
  if (update_shipped) return "";
  return " (not the shipped file: fit again with --update-shipped to make it the default; a "
         "system's overlay also applies with `inferencex --calibration FILE`)";
}

}  // namespace scoville::cli
