#include "sim/config/software_profile.hpp"

#include <algorithm>

#include "sim/base/number_format.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::config {

namespace {

// The one op class a path can take so far: the routed-expert matmuls.
constexpr const char* kRoutedExperts = "routed_experts";

std::vector<StackKernelPath> read_kernel_paths(MapReader& r, Diagnostics& diagnostics) {
  std::vector<StackKernelPath> out;
  const std::optional<YAML::Node> list = r.optional_raw("kernel_paths");
  if (!list) return out;
  const std::string list_path = r.path().empty() ? "kernel_paths" : r.path() + ".kernel_paths";
  if (!list->IsSequence()) {
    r.error("kernel_paths",
            "expected a list of {name, ops, weights, chips, block_rows, weight_pass_bandwidth, "
            "matrix_rate}");
    return out;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    MapReader k((*list)[i], r.file(), list_path + "[" + std::to_string(i) + "]", diagnostics);
    StackKernelPath p;
    p.path.name = k.string("name");
    k.choice("ops", {kRoutedExperts});
    const std::string format = k.choice("weights", number_format_names());
    p.path.weights = number_format_from_string(format).value_or(NumberFormat::kInt4);
    p.chips = k.string_list("chips");
    if (p.chips.empty() && k.has("chips")) k.error("chips", "expected at least one chip name");
    // Either limit or both (sim/serving/kernel_path.hpp); block_rows belongs to the weight passes.
    if (k.has("weight_pass_bandwidth") || !k.has("matrix_rate")) {
      p.path.block_rows = k.integer("block_rows", 1, 1 << 16);
      p.path.weight_pass_bandwidth = k.quantity<Bandwidth>("weight_pass_bandwidth");
    } else if (k.has("block_rows")) {
      k.error("block_rows", "block_rows sizes the weight passes; give weight_pass_bandwidth too");
    }
    if (k.has("matrix_rate")) p.path.matrix_rate = k.quantity<FlopRate>("matrix_rate");
    k.finish();
    out.push_back(std::move(p));
  }
  return out;
}

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
  p.top_p_sorts_vocabulary =
      r.choice_or("top_p_sampler", "single-pass", {"single-pass", "full-sort"}) == "full-sort";
  p.disaggregated_kv_whole_context =
      r.choice_or("disaggregated_kv", "windowed", {"windowed", "whole-context"}) == "whole-context";
  p.kernel_paths = read_kernel_paths(r, diagnostics);
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

std::vector<serving::KernelPath> SoftwareProfile::kernel_paths_on(const std::string& chip) const {
  std::vector<serving::KernelPath> out;
  for (const StackKernelPath& k : kernel_paths) {
    if (std::find(k.chips.begin(), k.chips.end(), chip) != k.chips.end()) out.push_back(k.path);
  }
  return out;
}

std::string software_in_effect(const std::string& requested, const std::string& system_stack) {
  if (requested == kNoSoftware) return "";
  if (requested == kSystemSoftware) return system_stack;
  return requested;
}

}  // namespace scoville::config
