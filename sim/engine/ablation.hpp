// `scoville ablate` as a library function: the variants of one or more varied keys (every
// combination, or one key at a time from a baseline), each a system study with its run settings
// and its input files changed (any key of the system, chip, model or software file:
// sim/config/config_override.hpp), elaborated all before the first runs (one SystemC design
// per process) and run in order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/config/data_paths.hpp"
#include "sim/engine/system_run_setup.hpp"
#include "sim/engine/system_study.hpp"

namespace scoville::engine {

// One varied key and its values, in the order given.
struct AblationAxis {
  std::string key;
  std::vector<std::string> values;
};

enum class AblationMode {
  kCartesian,   // every combination of the axes' values (the last axis varies fastest)
  kOneAtATime,  // the baseline (every axis at its first value), then each other value of each
                // axis with the others at their first
};

// "cartesian" or "one-at-a-time"; UsageError otherwise.
AblationMode parse_ablation_mode(const std::string& text);

// The variants: per variant, the value of each axis (aligned with `axes`). The first is the
// baseline in both modes.
std::vector<std::vector<std::string>> ablation_variants(const std::vector<AblationAxis>& axes,
                                                        AblationMode mode);

// `base` with one variant's values set: run settings (engine::set_run_field) on the arguments,
// file keys (config::config_key) into args.overrides. InputError for a key that is neither.
SystemRunArgs variant_args(const SystemRunArgs& base, const std::vector<AblationAxis>& axes,
                           const std::vector<std::string>& values);

struct AblationRow {
  std::vector<std::string> values;  // per axis
  SystemSetup setup;
  SystemStudyConfig config;
  SystemStudyResult result;
};

// Builds every variant (elaborates its design), then runs each; `step` is told each one done.
std::vector<AblationRow> run_ablation(const SystemRunArgs& base,
                                      const std::vector<AblationAxis>& axes, AblationMode mode,
                                      const config::DataPaths& paths,
                                      const std::function<void(const std::string&)>& step);

// "key=value, key=value" of a row, for progress lines and headers.
std::string variant_label(const std::vector<AblationAxis>& axes,
                          const std::vector<std::string>& values);

}  // namespace scoville::engine
