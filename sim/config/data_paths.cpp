#include "sim/config/data_paths.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "sim/base/error.hpp"

#ifndef SCOVILLE_DEFAULT_DATA_DIR
#error "SCOVILLE_DEFAULT_DATA_DIR must be defined by the build"
#endif

namespace scoville::config {

DataPaths DataPaths::from_environment() {
  const char* env = std::getenv("SCOVILLE_DATA_DIR");
  return DataPaths{env != nullptr && *env != '\0' ? env : SCOVILLE_DEFAULT_DATA_DIR};
}

std::string DataPaths::resolve(const std::string& name_or_path, const std::string& folder) const {
  const bool is_path =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".yaml") == 0);
  if (is_path) return name_or_path;
  return root + "/" + folder + "/" + name_or_path + ".yaml";
}

std::vector<std::string> DataPaths::available(const std::string& folder) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/" + folder, ec)) {
    const std::string stem = entry.path().stem().string();
    // Calibration overlays live beside the system files but are not systems.
    const bool overlay =
        stem.size() > 12 && stem.compare(stem.size() - 12, 12, ".calibration") == 0;
    if (entry.path().extension() == ".yaml" && !overlay) names.push_back(stem);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void require_known(const std::string& name_or_path, const std::string& path,
                   const std::string& folder, const DataPaths& paths, const std::string& what) {
  if (std::filesystem::exists(path)) return;
  std::string known;
  for (const std::string& n : paths.available(folder)) known += (known.empty() ? "" : ", ") + n;
  throw InputError(SourceLocation{path, 0, 0}, "",
                   "no " + what + " '" + name_or_path + "' (file not found); known " + what +
                       "s: " + (known.empty() ? "none" : known));
}

}  // namespace scoville::config
