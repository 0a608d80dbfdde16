// Where the shipped data lives (arch/, workloads/) and how names resolve to files.
#pragma once

#include <string>
#include <vector>

namespace scoville::config {

struct DataPaths {
  std::string root;  // folder holding arch/ and workloads/

  // The data root: $SCOVILLE_DATA_DIR if set, else the source tree this binary was built from.
  static DataPaths from_environment();

  // `name_or_path` is returned as is when it names a file (contains '/' or ends in .yaml);
  // otherwise it is looked up as <root>/<folder>/<name>.yaml.
  std::string resolve(const std::string& name_or_path, const std::string& folder) const;
  // Names available in <root>/<folder> (file stems), sorted.
  std::vector<std::string> available(const std::string& folder) const;
};

// Throws InputError when `path` (resolved from `name_or_path` in `folder`) does not exist, listing
// the known names of that folder; `what` names the kind in the message ("chip", "model").
void require_known(const std::string& name_or_path, const std::string& path,
                   const std::string& folder, const DataPaths& paths, const std::string& what);

}  // namespace scoville::config
