// Runs a multi-rank trace (engine/rank_traces.hpp) on a system: every rank's compute nodes on
// the system's chip model (or replayed from the trace's recorded durations), its collectives on
// the system's network (models::NetworkModel, as `scoville net` times them), ranks meeting at
// each collective. The scheduling, as ASTRA-sim's: each rank issues its nodes in file order once
// their data and control dependencies are done; compute nodes run one at a time per rank, and
// so do collectives (ASTRA-sim's HardwareResource), the two side by side; the k-th collective a
// rank issues over a group meets the k-th of every other member, and ends for all of them at the
// last member's arrival plus its network time; a send meets the receive with the same source,
// destination and ordinal. Each collective is timed on its own (collectives of different groups
// that overlap in time do not share link bandwidth) [ASSUMPTION: decode traces run one collective
// at a time].
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/rank_traces.hpp"

namespace scoville::engine {

enum class ComputeSource { kChipModel, kDurations };
ComputeSource parse_compute_source(const std::string& text);  // "chip" / "durations"

struct MultiRankOptions {
  std::string system;
  std::string trace;  // directory or prefix
  std::optional<std::string> comm_groups;
  ComputeSource compute = ComputeSource::kChipModel;
};

// Distinct collectives met, for comparing with `scoville net`.
struct CollectiveSummary {
  std::string collective;  // network name, e.g. "all_reduce"
  int64_t ranks = 0;
  double comm_size = 0;  // bytes as written in the trace (comm_size)
  Bytes network_size;    // what the network model was given (nccl-tests convention)
  Duration time;         // network time of one instance
  std::string algorithm;
  int64_t count = 0;  // instances
};

struct RankSummary {
  int64_t rank = 0;
  Duration finish;        // its last node's end
  Duration compute_time;  // sum of its compute nodes' times
  int64_t compute_nodes = 0;
  int64_t collective_nodes = 0;
};

struct MultiRankResult {
  std::string system;
  std::string chip;
  std::string prefix;
  int64_t world = 0;
  std::string compute_source;  // "chip model" / "recorded durations"
  Duration step_time;          // the last rank's finish
  std::vector<RankSummary> ranks;
  std::vector<CollectiveSummary> collectives;
  std::vector<std::string> assumptions;  // each printed once
  std::vector<std::string> warnings;     // import warnings, merged over ranks
};

// Throws InputError for unknown systems, bad traces, more ranks than the system's chips,
// collectives whose members disagree (type or size), and traces that deadlock (a rank waits at a
// collective another member never reaches). Call once per process (SystemC).
MultiRankResult run_multi_rank_trace(const MultiRankOptions& options,
                                     const config::DataPaths& paths);

std::string render_multi_rank_text(const MultiRankResult& r);
std::string render_multi_rank_json(const MultiRankResult& r);

}  // namespace scoville::engine
