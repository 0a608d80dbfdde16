// The setup of a system run (`run --system`, `run --study` with `system:`, sweep points, `ablate`):
// the settings the flags or a study give, resolved into the engine's SystemSetup and study
// configuration (mapping defaults, degrees checked against the system's chips).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/base/error.hpp"
#include "sim/config/config_override.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/system_study.hpp"
#include "sim/study/study_config.hpp"

namespace scoville::engine {

struct SystemRunArgs {
  std::optional<std::string> system;
  std::optional<std::string> model;
  int64_t batch = 8;
  int64_t isl = 1024;
  int64_t osl = 128;
  std::string kv_placement = "local";
  std::string fidelity = "representative";
  std::string overlap = "none";
  std::string routing = "expected";  // workloads::parse_routing_spec (drawn with `seed`)
  std::optional<long long> tp, ep, pp, dp, attn_dp;
  std::optional<std::string> mapping_file;
  bool json = false;
  bool reuse_repeated_ops = false;  // SystemEngineOptions::simulate_repeated_ops_once
  // --software: config::kSystemSoftware (the system file's stack), config::kNoSoftware, or a
  // stack name or file (arch/software).
  std::string software;
  bool any_system_flag = false;  // a flag only the system path understands was given
  uint64_t seed = 0;             // recorded in outputs; seeds a drawn MoE routing
  // Where the settings came from: the command line, or a study file (errors then name the
  // study's keys, e.g. study.mapping.tp, instead of the flags).
  SourceLocation where{"<command line>", 0, 0};
  bool from_study = false;
  std::string study_yaml;  // the study as written (empty for flags)
  // Keys of the input files changed (`ablate --vary chip.hbm.capacity=...`); the system's own
  // are applied by whoever loads the system (config::system_with), the others by system_setup.
  config::ConfigOverrides overrides;
};

// The run --system flags a study with `system:` stands for (its model and shape included).
SystemRunArgs system_args(const study::StudyConfig& study);

// True when `name` names a system (arch/systems/NAME.yaml, or a file with a `system:` section).
bool names_system(const std::string& name, const config::DataPaths& paths);

// The mapping from the flags: --mapping FILE (its only pool, or its "decode" pool), else the
// degrees given; without any, tp = the smaller of 8 and the local domain, ep = tp for an MoE
// model, dp = pp = attn_dp = 1.
SystemSetup system_setup(const SystemRunArgs& r, const config::SystemConfig& system,
                         const config::DataPaths& paths);
SystemStudyConfig study_config(const SystemRunArgs& r);

// The study this run amounts to, with every default filled in (the mapping as degrees).
study::StudyConfig resolved_study(const SystemRunArgs& a, const SystemSetup& setup);

// Sets one run setting by its key (`ablate --vary KEY=V`): kv_placement, fidelity, overlap,
// routing, tp, ep, pp, dp, attn_dp, batch, isl or osl. InputError naming the keys otherwise.
void set_run_field(SystemRunArgs& r, const std::string& key, const std::string& value);

// A warning when the mapping took by default (no --tp/--dp/--mapping) leaves most of the
// system's chips idle: the whole batch then runs on a few chips, which is rarely what an architect
// meant and slow to simulate (a 2,048-chip system's default tp 8 puts a batch of 2,048 on 8
// chips). Suggests the data-parallel degree that uses every chip. Empty when the mapping uses at
// least a quarter of the chips or was given.
std::string idle_chips_warning(const SystemRunArgs& r, const SystemSetup& setup);

}  // namespace scoville::engine
