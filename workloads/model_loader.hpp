// Loading a model file: parse into a ModelSpec (model_spec.hpp), then resolve it into a
// ModelConfig with the cross-field checks (heads divisible by kv_heads, top_k <= experts, ...).
// Every problem in the file is reported at once, as one InputError naming file:line:col and the
// dotted key path of each.
#pragma once

#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "workloads/model_config.hpp"
#include "workloads/model_spec.hpp"

namespace scoville::workloads {

// Reads workloads/models/*.yaml. Throws InputError.
ModelConfig load_model(const std::string& path);
// The same from YAML text; `display_name` stands for the file name in errors.
ModelConfig load_model_from_string(const std::string& yaml, const std::string& display_name);

// The names a model file answers to: its `name` and its `aliases`. Throws InputError when the
// file is not a valid model.
std::vector<std::string> load_model_names(const std::string& path);

// Resolution alone, for a spec read without errors. Problems go to `diagnostics`; the result is
// meaningful only if none were added.
ModelConfig resolve_model(const ModelSpec& spec, Diagnostics& diagnostics);

}  // namespace scoville::workloads
