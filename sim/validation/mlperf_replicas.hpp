// The serving instance an MLPerf run was deployed on, as its submission publishes it (the
// configs beside its results: tensor parallelism, or a submitter's stated replicas per node):
// workloads/measurements/mlperf-replicas.csv, one line per run, keyed by the run's results
// folder as a row's notes name it. `validate` runs such a row on that replica instead of trying
// replica sizes for the best throughput (concurrency_sweep.hpp); a run without a line is swept
// as before.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::validation {

struct PublishedReplica {
  // The run's results folder, e.g. closed/RedHat/results/8xH200-LLM-D-Openshift/gpt-oss-120b/
  // Offline (no leading "./", no "/performance/run_N" tail).
  std::string location;
  int64_t replica_chips = 0;  // chips of one serving instance (TP x PP)
  SourceLocation where;       // file and line it was read from
};

// Reads the file; '#' lines are comments. Throws InputError naming the file, line and column of
// the first bad value (an empty or repeated location, a chip count that is not a whole number
// from 1 to 1024).
std::vector<PublishedReplica> read_mlperf_replicas(const std::string& path);
// The same from the file's text; `path` names it in errors.
std::vector<PublishedReplica> parse_mlperf_replicas(const std::string& text,
                                                    const std::string& path);
// workloads/measurements/mlperf-replicas.csv of the data root; none when the root has no such
// file (a data folder without MLPerf rows need not ship it).
std::vector<PublishedReplica> shipped_mlperf_replicas(const config::DataPaths& paths);

// The results folder a row's notes name ("location ./closed/X/results/S/B/Offline/performance/
// run_1;"), normalised as PublishedReplica::location; nullopt when the notes name none.
std::optional<std::string> notes_location(const std::string& notes);

// The line for a results folder; nullptr when there is none.
const PublishedReplica* find_replica(const std::vector<PublishedReplica>& replicas,
                                     const std::string& location);

}  // namespace scoville::validation
