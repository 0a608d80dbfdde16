// Runs one chip role's trace file (native YAML or Chakra ET) on the SystemC chip model: the
// compute and memory nodes execute on a ChipModule in the trace's (topological) order, one op
// after another as in run_study. Collectives need the other chips and a network, which a
// single-chip run does not have: they are counted, reported as not simulated, and take no time.
#pragma once

#include <string>
#include <vector>

#include "sim/config/data_paths.hpp"
#include "sim/stats/results.hpp"
#include "workloads/trace/chip_trace.hpp"

namespace scoville::engine {

// A trace file read by its extension (".et": Chakra; ".yaml"/".yml": native) or, for any other
// name, by its content (a native trace is YAML naming `format: scoville-trace`).
struct LoadedTrace {
  std::string format;  // "native" or "chakra"
  workloads::ChipTrace trace;
  std::vector<std::string> warnings;  // import losses (Chakra) and the skipped collectives
};
LoadedTrace load_trace_file(const std::string& path);

struct TraceRunResult {
  std::string chip;
  std::string chip_file;
  std::string trace_file;
  LoadedTrace loaded;
  std::vector<stats::OpResult> ops;  // the simulated nodes, in execution order
  int64_t collectives_not_simulated = 0;
  Bytes collective_bytes_not_simulated;  // this chip's bytes in those collectives
  Duration time;                         // first op start to last op end
  Flops flops;
  Bytes hbm_bytes;
  models::EnergyBreakdown energy;
};

// Throws InputError for an unknown chip, an unreadable, corrupt or oversized trace file, or a
// trace with nothing to run on a chip (only collectives). Call once per process (SystemC).
TraceRunResult run_trace_file(const std::string& chip, const std::string& trace_file,
                              const config::DataPaths& paths);

std::string render_trace_run_text(const TraceRunResult& r);
std::string render_trace_run_json(const TraceRunResult& r);

}  // namespace scoville::engine
