// sweep.h5: the index of a sweep directory (FORMATS.md §3 "Sweeps"): /points (one row per point:
// id, index, each axis value, status, error, path of its run file) and /results (each point's
// /summary rows, prefixed by point_id). Built from whatever the directory holds, so it also merges
// the output of shards and of an interrupted sweep.
#pragma once

#include <string>
#include <vector>

#include "sim/output/h5_writer.hpp"
#include "sim/output/provenance.hpp"
#include "sim/sweep/sweep_config.hpp"

namespace scoville::sweep {

struct IndexCounts {
  int64_t done = 0;
  int64_t failed = 0;
  int64_t pending = 0;
};

output::H5Document build_index(const std::string& dir, const SweepConfig& sweep,
                               const std::vector<SweepPoint>& points,
                               const output::Provenance& provenance, IndexCounts& counts);

// Builds the index and writes dir/sweep.h5 atomically.
IndexCounts write_index(const std::string& dir, const SweepConfig& sweep,
                        const std::vector<SweepPoint>& points,
                        const output::Provenance& provenance);

}  // namespace scoville::sweep
