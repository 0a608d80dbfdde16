// The system side of `scoville run --system` and `scoville ablate`: their shared flags, the setup
// they build (system + model + mapping + options) and the per-phase report (text and JSON).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/cli/arg_reader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/system_study.hpp"

namespace scoville::cli {

struct SystemRunArgs {
  std::optional<std::string> system;
  std::optional<std::string> model;
  int64_t batch = 8;
  int64_t isl = 1024;
  int64_t osl = 128;
  std::string kv_placement = "local";
  std::string fidelity = "representative";
  std::string overlap = "none";
  std::optional<long long> tp, ep, pp, dp, attn_dp;
  std::optional<std::string> mapping_file;
  bool json = false;
  bool reuse_repeated_ops = false;  // SystemEngineOptions::simulate_repeated_ops_once
  bool any_system_flag = false;     // a flag only the system path understands was given
};

// Consumes the current flag when it is one of the system flags; false otherwise.
bool read_system_flag(ArgReader& a, SystemRunArgs& r);

// True when `name` names a system (arch/systems/NAME.yaml, or a file with a `system:` section).
bool names_system(const std::string& name, const config::DataPaths& paths);

// The mapping from the flags: --mapping FILE (its only pool, or its "decode" pool), else the
// degrees given; without any, tp = the smaller of 8 and the local domain, ep = tp for an MoE
// model, dp = pp = attn_dp = 1.
engine::SystemSetup system_setup(const SystemRunArgs& r, const config::SystemConfig& system,
                                 const config::DataPaths& paths);
engine::SystemStudyConfig study_config(const SystemRunArgs& r);

void render_system_text(std::ostream& out, const engine::SystemSetup& setup,
                        const engine::SystemStudyConfig& study,
                        const engine::SystemStudyResult& result);
void render_system_json(std::ostream& out, const engine::SystemSetup& setup,
                        const engine::SystemStudyConfig& study,
                        const engine::SystemStudyResult& result);

// Named components of a phase (time in s, energy in J), in report order.
std::vector<std::pair<std::string, double>> time_parts(const engine::SystemIterationResult& r);
std::vector<std::pair<std::string, double>> energy_parts(const engine::SystemIterationResult& r);

}  // namespace scoville::cli
