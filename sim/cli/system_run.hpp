// The system side of `scoville run --system`, of a study with `system:` (`run --study`, sweep
// points) and of `scoville ablate`: their shared flags, the setup they build (system + model +
// mapping + options), the run itself and the per-phase report (text, JSON and HDF5).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/cli/arg_reader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/system_study.hpp"
#include "sim/output/perfetto_trace.hpp"
#include "sim/output/provenance.hpp"
#include "sim/study/study_config.hpp"

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
  std::string routing = "expected";  // workloads::parse_routing_spec (drawn with `seed`)
  std::optional<long long> tp, ep, pp, dp, attn_dp;
  std::optional<std::string> mapping_file;
  bool json = false;
  bool reuse_repeated_ops = false;  // SystemEngineOptions::simulate_repeated_ops_once
  bool any_system_flag = false;     // a flag only the system path understands was given
  uint64_t seed = 0;                // recorded in outputs; seeds a drawn MoE routing
  // Where the settings came from: the command line, or a study file (errors then name the
  // study's keys, e.g. study.mapping.tp, instead of the flags).
  SourceLocation where{"<command line>", 0, 0};
  bool from_study = false;
  std::string study_yaml;  // the study as written (empty for flags)
};

// The run --system flags a study with `system:` stands for (its model and shape included).
SystemRunArgs system_args(const study::StudyConfig& study);

// Runs a system study: loads the system, builds the setup, simulates, prints the report (text
// or JSON by args.json) and, when `h5_output` is given, writes the results file atomically.
// The one path of `run --system` and of `run --study` with a system study.
// With `trace`, also writes the run's timeline (the critical paths and every network transfer
// on them, sim/output/system_trace.hpp) atomically; recording it does not change the results.
struct SystemTraceRequest {
  std::string file;
  output::TraceOptions options;
  output::Provenance provenance;
};
void run_system_study(const SystemRunArgs& args, const output::Provenance& provenance,
                      const std::optional<std::string>& h5_output, std::ostream& out,
                      const SystemTraceRequest* trace = nullptr);

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
