#include "sim/config/system_override.hpp"

#include <yaml-cpp/yaml.h>

#include <sstream>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::config {

SystemConfig system_with(const std::string& path, const std::string& dotted,
                         const std::string& value) {
  std::vector<std::string> parts;
  std::stringstream ss(dotted);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  if (parts.size() >= 2 && (parts[1] == "local" || parts[1] == "scale_out")) {
    parts.insert(parts.begin() + 1, "network");
  }
  YAML::Node root = load_yaml_file(path);
  YAML::Node node = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node child = node[parts[i]];
    if (!child || !child.IsMap()) {
      throw InputError(SourceLocation{path, 0, 0}, dotted,
                       "--vary: the system file has no section '" + parts[i] + "' on this path");
    }
    node.reset(child);  // rebind (operator= would overwrite the parent's content)
  }
  YAML::Node leaf = node[parts.back()];
  if (value.find_first_of("[{") == 0) {
    leaf = YAML::Load(value);
  } else {
    leaf = value;
  }
  YAML::Emitter e;
  e << root;
  return parse_system_string(e.c_str(), path);
}

}  // namespace scoville::config
