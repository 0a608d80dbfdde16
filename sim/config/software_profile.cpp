#include "sim/config/software_profile.hpp"

#include "sim/base/yaml_reader.hpp"

namespace scoville::config {

namespace {

SoftwareProfile read_software(const YAML::Node& root, const std::string& file) {
  Diagnostics diagnostics;
  MapReader top(root, file, "", diagnostics);
  MapReader r = top.map("software");
  top.finish();
  SoftwareProfile p;
  p.name = r.string("name");
  p.description = r.string_or("description", "");
  p.per_op_launch = r.quantity<Duration>("per_op_launch", Range::kNonNegative);
  p.per_layer_sync = r.quantity<Duration>("per_layer_sync", Range::kNonNegative);
  p.per_iteration = r.quantity<Duration>("per_iteration", Range::kNonNegative);
  p.per_collective = r.quantity_or<Duration>("per_collective", Duration(0), Range::kNonNegative);
  p.per_all_to_all =
      r.quantity_or<Duration>("per_all_to_all", p.per_collective, Range::kNonNegative);
  p.per_sequence = r.quantity_or<Duration>("per_sequence", Duration(0), Range::kNonNegative);
  p.per_kv_transfer = r.quantity_or<Duration>("per_kv_transfer", Duration(0), Range::kNonNegative);
  p.fused_vector_ops = r.boolean_or("fused_vector_ops", false);
  r.finish();
  diagnostics.throw_if_any();
  return p;
}

}  // namespace

SoftwareProfile parse_software_string(const std::string& yaml, const std::string& display_name) {
  return read_software(load_yaml_string(yaml, display_name), display_name);
}

SoftwareProfile parse_software(const std::string& path) {
  return read_software(load_yaml_file(path), path);
}

SoftwareProfile load_software(const std::string& name_or_path, const DataPaths& paths) {
  return parse_software(paths.resolve(name_or_path, "arch/software"));
}

std::string software_in_effect(const std::string& requested, const std::string& system_stack) {
  if (requested == kNoSoftware) return "";
  if (requested == kSystemSoftware) return system_stack;
  return requested;
}

}  // namespace scoville::config
