// The search InferenceX ran for a best-throughput row that does not publish its concurrency:
// the tensor-parallel sizes and the concurrency range of the configuration entry that produced
// it (InferenceX's master configs, `search-space: { tp, conc-start, conc-end }`), from
// workloads/measurements/inferencex-searches.csv, one line per search-space entry, keyed by the
// row's id and model. `validate` sweeps such a row on those replicas up to those concurrencies
// instead of every concurrency to kMaxSweepConcurrency: InferenceX's peak is the best point of
// its own search, not of every load the hardware could take.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/config/data_paths.hpp"

namespace scoville::validation {

struct SearchedReplica {
  int64_t replica_chips = 0;    // tensor parallelism of the entry: the chips of one server
  int64_t max_concurrency = 0;  // its conc-end: the most clients that server was given
};

struct InferencexSearch {
  std::string row_id;  // the measurement row's id
  std::string model;   // the row's model as published (a line applies only to that model)
  SearchedReplica space;
  SourceLocation where;  // file and line it was read from
};

// Reads the file; '#' lines are comments. Throws InputError naming the file, line and column of
// the first bad value (an empty id or model, chips or concurrency that are not whole numbers in
// range, a second line for the same row and replica).
std::vector<InferencexSearch> read_inferencex_searches(const std::string& path);
// The same from the file's text; `path` names it in errors.
std::vector<InferencexSearch> parse_inferencex_searches(const std::string& text,
                                                        const std::string& path);
// workloads/measurements/inferencex-searches.csv of the data root; none when the root has no
// such file.
std::vector<InferencexSearch> shipped_inferencex_searches(const config::DataPaths& paths);

// The lines for a row (its id and published model), in file order; empty when none applies.
std::vector<const InferencexSearch*> searches_for(const std::vector<InferencexSearch>& searches,
                                                  const std::string& row_id,
                                                  const std::string& model);

}  // namespace scoville::validation
