// A study: which chips run which model at which request shape. Issue-2 scope: one request shape
// (batch sequences in lockstep, isl prompt tokens, osl generated tokens) per chip.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "workloads/precision_override.hpp"

namespace scoville::study {

struct StudyConfig {
  std::string name;
  std::vector<std::string> chips;  // chip names (arch/chips/<name>.yaml) or file paths
  std::string model;               // model name (workloads/models/<name>.yaml) or file path
  int64_t batch = 1;
  int64_t isl = 1;
  int64_t osl = 1;
  uint64_t seed = 0;
  // Per-run number formats by tensor class (`precision:` map), over the model file's own.
  workloads::PrecisionOverride precision;
  // Software overhead profile (arch/software/<name>.yaml or a file); empty: none, so results
  // are hardware time only.
  std::string software;
  // Power cap over every chip's own (`power_cap: 500 W`); the chips need a power_management
  // section (DVFS points) to honour it. Absent: each chip's configured cap (default its TDP).
  std::optional<Power> power_cap;
  std::string source;     // file the study came from ("<embedded default study>" for the default)
  std::string yaml_text;  // the study as written, kept for provenance
};

// Limits that keep a single run bounded in time and memory (a bad value is refused, not tried).
constexpr int64_t kMaxBatch = 65536;
constexpr int64_t kMaxSequenceTokens = 16'777'216;

StudyConfig parse_study_file(const std::string& path);
StudyConfig parse_study_string(const std::string& yaml, const std::string& display_name);
// The study `scoville run` runs with no arguments.
StudyConfig default_study();
// Renders a study (with every default filled in) as YAML.
std::string to_yaml(const StudyConfig& study);

}  // namespace scoville::study
