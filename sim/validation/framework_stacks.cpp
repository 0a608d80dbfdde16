#include "sim/validation/framework_stacks.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "sim/validation/data_table.hpp"

namespace scoville::validation {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<FrameworkStackRule> read_framework_stacks(const std::string& path,
                                                      const config::DataPaths& paths) {
  std::vector<FrameworkStackRule> out;
  const std::vector<std::string> known = paths.available("arch/software");
  const auto read_row = [&](int number, const std::vector<std::string>& header,
                            const std::vector<std::string>& cells) {
    const DataRow r{path, number, header, cells};
    FrameworkStackRule rule;
    rule.framework_contains = lower(r.text("framework_contains"));
    if (rule.framework_contains.empty()) {
      throw InputError(r.at("framework_contains"), "framework_contains",
                       "expected a part of a framework name, e.g. 'TensorRT'");
    }
    for (const char* column : {"on_system_stack", "stack"}) {
      const std::string& name = r.text(column);
      if (name.empty() && std::string(column) == "on_system_stack") continue;
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        throw InputError(r.at(column), column,
                         "expected a stack of arch/software (" + list + "), got '" + name + "'");
      }
    }
    rule.on_system_stack = r.text("on_system_stack");
    rule.stack = r.text("stack");
    rule.where = SourceLocation{path, number, 1};
    out.push_back(std::move(rule));
  };
  for_each_data_row(read_data_file(path, "framework-stacks file"), path,
                    {"framework_contains", "on_system_stack", "stack"}, read_row);
  return out;
}

std::vector<FrameworkStackRule> shipped_framework_stacks(const config::DataPaths& paths) {
  const std::filesystem::path file =
      std::filesystem::path(paths.root) / "workloads" / "measurements" / "framework-stacks.csv";
  // A data root without rules (one made before them): every row on its system's stack, and
  // validate lists them all as such.
  if (!std::filesystem::exists(file)) return {};
  return read_framework_stacks(file.string(), paths);
}

std::string framework_stack(const std::vector<FrameworkStackRule>& rules,
                            const std::string& framework, const std::string& system_stack) {
  const std::string text = lower(framework);
  for (const FrameworkStackRule& rule : rules) {
    if (!rule.on_system_stack.empty() && rule.on_system_stack != system_stack) continue;
    if (text.find(rule.framework_contains) != std::string::npos) return rule.stack;
  }
  return "";
}

}  // namespace scoville::validation
