// A study: which chips (or which multi-chip system) run which model at which request shape: one
// request shape (batch sequences in lockstep, isl prompt tokens, osl generated tokens). With
// `chips:` each chip runs the model on its own; with `system:` the model runs mapped on the
// system (SystemEngine), exactly as `scoville run --system` with the same flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/base/units.hpp"
#include "workloads/precision_override.hpp"

namespace scoville::study {

// The keys of a study on a multi-chip system: what `scoville run --system` takes as flags.
struct SystemStudyKeys {
  std::string system;  // system name (arch/systems/<name>.yaml) or file path
  std::string kv_placement = "local";
  std::string fidelity = "representative";
  std::string overlap = "none";
  std::string routing = "expected";  // MoE routing: expected, uniform, zipf or zipf:S
  bool reuse_repeated_ops = false;
  // `mapping:` as a file (a mapping YAML, as --mapping) or as degrees (as --tp ... --attn-dp);
  // an absent degree takes run --system's default.
  std::string mapping_file;
  std::optional<int64_t> tp, ep, pp, dp, attn_dp;
  SourceLocation where;  // the mapping: key (else system:), for errors found when it runs
};

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
  // The system path (`system:` instead of `chips:`); unset: the single-chip study.
  std::optional<SystemStudyKeys> system;
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
