// The op-cost seam of the iteration pricer (docs/modelling.md, "Fidelity as a backend"): what
// one op of one chip costs. RooflineCostModel walks an iteration (groups, fusion, attention-DP,
// collectives, software time, energy) and asks an OpCostModel for each fused op's hardware time;
// without one it uses its own closed form (max of FLOPs at peak and bytes at HBM bandwidth, the
// calibration knobs applied). The SystemC-backed implementation, which runs each distinct op on
// an elaborated chip model and keeps it in an op table, lives with the engine
// (sim/engine/simulated_op_cost.hpp): nothing at this level knows which one it has.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/energy/energy_model.hpp"
#include "sim/base/units.hpp"
#include "workloads/op.hpp"

namespace scoville::serving {

// One op on one chip: its hardware time and what the time is bound by, and its dynamic actions
// (priced by the chip's energy table where the op is accounted).
struct OpPrice {
  Duration time;          // wall time of the op on the chip, > 0 for an op with work
  Duration compute_time;  // the slowest tile's compute alone (for the bound and power scaling)
  Duration memory_time;   // HBM bytes at peak bandwidth (for the bound)
  models::ActionCounts counts;  // dynamic actions of the op (one chip)
  // The op's time through the stack's kernel path where one takes it (sim/serving/kernel_path),
  // else 0: the pricer runs the op for the longer of this and its calibrated `time`.
  Duration path_time;

  bool compute_bound() const { return compute_time > memory_time; }
  // The time the binding resource is busy (what a calibration fraction stretches).
  Duration busy_time() const { return compute_bound() ? compute_time : memory_time; }
};

// Hit/miss counters of a memoising op-cost model, for reports.
struct OpTableStats {
  int64_t lookups = 0;
  int64_t memory_hits = 0;  // answered from the process's table
  int64_t disk_hits = 0;    // answered from the persistent op cache
  int64_t simulated = 0;    // ops run on the chip model
  int64_t disk_writes = 0;
  int64_t disk_write_failures = 0;
  std::string cache_directory;  // the persistent op cache; empty: bypassed
};

class OpCostModel {
 public:
  virtual ~OpCostModel() = default;
  // The op as the workload describes it (one chip's share, after mapping).
  virtual OpPrice price(const workloads::Op& op) const = 0;
  // The fidelity's name as outputs record it, e.g. "op-table".
  virtual std::string fidelity() const = 0;
  virtual OpTableStats stats() const { return {}; }
};

// One chip's part of an op as the iteration pricer fuses it: `op` scaled by `share` (attention-DP
// ops that span the ranks were mapped over every rank's copy of a group; share = 1 / copies).
struct OpShare {
  const workloads::Op* op = nullptr;
  double share = 1.0;
};

// The op a kernel runs for several groups' instances of one op (same name, layer): tokens,
// FLOPs, activations and KV add up; weights are read once (the largest); matmul rows follow
// from the FLOPs (m = FLOPs / (2 n k instances)), experts touched are the most any part touched.
// Attention is not fused here (each group's context differs): the pricer sums its parts.
// Throws std::invalid_argument on an empty list or parts of different kinds.
workloads::Op fuse_ops(const std::vector<OpShare>& parts);

}  // namespace scoville::serving
