// Setting one dotted key of a parsed YAML document (`--set tiles.count=160`), as ablate's
// system_with does for system files: the value replaces the key's, a value starting with [ or {
// is parsed as YAML, and a missing section on the path is an InputError naming it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace scoville::config {

// Sets `dotted` (a.b.c, relative to `root`) to `value` in place. `file` and `flag` name the
// document and the option in errors. A missing leaf key is added; a missing section is an error.
void set_yaml_key(YAML::Node root, const std::string& dotted, const std::string& value,
                  const std::string& file, const std::string& flag);

}  // namespace scoville::config
