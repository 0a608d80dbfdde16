// What one serving iteration's time is made of, as the iteration pricer computes it
// (RooflineCostModel::explain; `scoville step` prints it): the time of every fused op and
// collective of the iteration, per layer and times the layers it stands for, what bounds each op,
// and the stack's software time by part. The parts add up to the iteration's time exactly: a
// per-op table of the same arithmetic, not a second estimate beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/serving/iteration_cost_model.hpp"

namespace scoville::serving {

// What sets a fused op's time.
enum class OpBound {
  kHbm,         // its HBM traffic (the chip model's memory-bound time, or bytes at the roofline)
  kCompute,     // its math (or, at the roofline, its math and HBM time are equal)
  kKernelPath,  // the stack's kernel path for it (sim/serving/kernel_path.hpp), slower than both
};
std::string to_string(OpBound bound);

struct OpTime {
  int64_t stage = 0;   // pipeline stage (stages run one after another)
  std::string name;    // the op's name and the layer that stands for the others, "attention#3"
  int64_t layers = 1;  // layers of the stage it stands for (the model's layers of one kind)
  Duration per_layer;  // the slowest attention-DP rank's time for one of them
  OpBound bound = OpBound::kHbm;
  Duration total() const { return per_layer * static_cast<double>(layers); }
};

struct CollectiveTime {
  int64_t stage = 0;
  std::string name;    // "attn_allreduce#3"
  std::string kind;    // all_reduce, all_to_all, ...
  int64_t group = 1;   // ranks
  Bytes bytes;         // per call, the most loaded rank's
  int64_t layers = 1;  // calls: one per layer it stands for
  Duration per_layer;
  Duration total() const { return per_layer * static_cast<double>(layers); }
};

// One term of the stack's software time: `count` times `each` (a fitted overhead has count 1).
struct SoftwareTime {
  std::string part;  // per_op_launch, per_layer_sync, per_iteration, per_collective, ...
  int64_t count = 0;
  Duration each;
  Duration total() const { return each * static_cast<double>(count); }
};

struct IterationExplanation {
  IterationCost cost;  // as IterationCostModel::cost gives it
  std::vector<OpTime> ops;
  std::vector<CollectiveTime> collectives;
  Duration host_kv_reads;  // remote_pool KV over the host link (every stage)
  std::vector<SoftwareTime> software;
  // The sum of every part above: equal to cost.time (to rounding).
  Duration parts_total() const;
};

}  // namespace scoville::serving
