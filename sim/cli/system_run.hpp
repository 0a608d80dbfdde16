// The system side of `scoville run --system`, of a study with `system:` (`run --study`, sweep
// points) and of `scoville ablate`: their shared flags and the run itself (simulate, report, write
// the results file and the timeline). The setup is sim/engine/system_run_setup.hpp, the report
// sim/output/system_report.hpp.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "sim/cli/option_set.hpp"
#include "sim/engine/system_run_setup.hpp"
#include "sim/output/perfetto_trace.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::cli {

using engine::SystemRunArgs;

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
// On a terminal, unless `quiet`, a progress line counts the engine iterations simulated.
void run_system_study(const SystemRunArgs& args, const output::Provenance& provenance,
                      const std::optional<std::string>& h5_output, std::ostream& out,
                      const SystemTraceRequest* trace = nullptr, bool quiet = false);

// The system flags `run --system` and `ablate` share (--kv-placement, the mapping degrees,
// --mapping, --fidelity, --overlap, --routing, --reuse-repeated-ops, --software); `context`
// starts each help text ("with --system: " where they apply only to a system run).
void declare_system_flags(OptionSet& options, const std::string& context);
// The values given into `r`; any_system_flag tells whether any was given.
void read_system_flags(const ParsedOptions& p, SystemRunArgs& r);

}  // namespace scoville::cli
