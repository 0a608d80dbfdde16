// Which serving stack (arch/software) a published row ran on, from its `framework` column, by
// data (workloads/measurements/framework-stacks.csv): each rule names a substring of the
// framework text (any case), optionally the system stack it applies on (a "vLLM" row on an AMD
// system ran ROCm vLLM), and the stack. The first matching rule wins; a row no rule matches runs
// on its system's own stack, and says so.
#pragma once

#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::validation {

struct FrameworkStackRule {
  std::string framework_contains;  // lower case
  std::string on_system_stack;     // empty: any system
  std::string stack;               // arch/software name
  SourceLocation where;
};

// Reads a rules file. InputError naming file, line and column for an empty substring or stack, or
// a stack that is no arch/software file.
std::vector<FrameworkStackRule> read_framework_stacks(const std::string& path,
                                                      const config::DataPaths& paths);
// workloads/measurements/framework-stacks.csv of the data root; none when the data root has no
// such file (every row then runs on its system's stack, and validate lists them).
std::vector<FrameworkStackRule> shipped_framework_stacks(const config::DataPaths& paths);

// The stack a row of `framework` ran, on a system whose own stack is `system_stack` (a name);
// empty when no rule matches.
std::string framework_stack(const std::vector<FrameworkStackRule>& rules,
                            const std::string& framework, const std::string& system_stack);

}  // namespace scoville::validation
