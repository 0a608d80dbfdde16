#include "sim/config/yaml_override.hpp"

#include <sstream>
#include <vector>

#include "sim/base/error.hpp"

namespace scoville::config {

void set_yaml_key(YAML::Node root, const std::string& dotted, const std::string& value,
                  const std::string& file, const std::string& flag) {
  std::vector<std::string> parts;
  std::stringstream ss(dotted);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  if (parts.empty() || dotted.back() == '.') {
    throw InputError(SourceLocation{file, 0, 0}, dotted, flag + ": empty key");
  }
  YAML::Node node = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node child = node[parts[i]];
    if (!child || !child.IsMap()) {
      throw InputError(SourceLocation{file, 0, 0}, dotted,
                       flag + ": the file has no section '" + parts[i] + "' on this path");
    }
    node.reset(child);  // rebind (operator= would overwrite the parent's content)
  }
  YAML::Node leaf = node[parts.back()];
  if (value.find_first_of("[{") == 0) {
    leaf = YAML::Load(value);
  } else {
    leaf = value;
  }
}

}  // namespace scoville::config
