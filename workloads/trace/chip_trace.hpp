// One iteration as one chip role executes it, after a parallel mapping: the ops this chip runs
// (its shard of the model), the collectives it takes part in, and the dependencies between them.
// This is what trace files (native, Chakra ET) hold and what the hardware models consume; a user
// may also write one by hand or generate it with another tool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "workloads/iteration.hpp"
#include "workloads/op.hpp"

namespace scoville::workloads {

// Collective kinds, as Chakra's CollectiveCommType names them, plus point-to-point.
enum class CollectiveKind {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kSend,
  kRecv,
};
std::string to_string(CollectiveKind kind);

// A collective (or point-to-point transfer) this chip takes part in.
struct Collective {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  // The communicator: which parallel dimension it spans ("tp", "ep", "pp", "dp", "attn_dp") and
  // how many chips are in it. `peer` is the other rank for send/recv (-1 otherwise).
  std::string group;
  int64_t group_size = 1;
  int64_t peer = -1;
  // Bytes this chip contributes: the full buffer for all-reduce and broadcast, the local shard
  // for all-gather (its input) and reduce-scatter (its output), the total sent for all-to-all,
  // the message for send/recv (NCCL's count convention: see docs/traces.md).
  Bytes bytes;
};

enum class TraceNodeKind { kCompute, kCollective };
std::string to_string(TraceNodeKind kind);

struct TraceNode {
  uint64_t id = 0;  // unique within the trace; nodes are stored in a topological order
  std::string name;
  int layer = -1;
  TraceNodeKind kind = TraceNodeKind::kCompute;
  Op op;                            // kCompute: this chip's shard of the op (shape, FLOPs, bytes)
  Collective collective;            // kCollective
  std::vector<uint64_t> data_deps;  // must finish before this node starts (consumes their output)
  std::vector<uint64_t> ctrl_deps;  // ordering only
};

// The parallel layout one trace belongs to: dp x pp x tp = the chips of the pool; attn_dp and ep
// subdivide the tp group (workloads/mapping/pool_mapping.hpp, docs/mapping.md).
struct ParallelDegrees {
  int64_t tp = 1;       // tensor parallel (attention heads and FFN columns split)
  int64_t ep = 1;       // expert parallel (experts split; MoE all-to-all)
  int64_t pp = 1;       // pipeline parallel (layers split into stages)
  int64_t dp = 1;       // data parallel replicas (whole model copies)
  int64_t attn_dp = 1;  // attention data parallel (sequences split across attention ranks)
  // Sequence parallel (Megatron): row-parallel outputs are reduce-scattered over the tokens
  // and all-gathered before the next column-parallel op; norms and residuals run on 1 / tp of
  // the tokens.
  bool sequence_parallel = false;
};

// Trace files larger than these are refused before they are read or built (docs/errors.md,
// "Limits"): the largest mapped iteration in the library has ~10^4 nodes per chip role, so 10^7
// leaves room for hand-made and foreign traces while keeping memory bounded [ASSUMPTION].
inline constexpr int64_t kMaxTraceNodes = 10'000'000;
inline constexpr int64_t kMaxTraceFileBytes = int64_t{1} << 30;

struct ChipTrace {
  static constexpr int kFormatVersion = 1;
  std::string model;  // model name
  std::string role;   // e.g. "decode", "prefill", "stage0"
  int64_t rank = 0;   // this chip's rank within the pool (the first rank of the role)
  int64_t world_size = 1;
  // Ranks that do exactly this work (SPMD shards of one role): the trace stands for all of them.
  int64_t multiplicity = 1;
  ParallelDegrees degrees;
  IterationShape shape;  // the whole iteration (all sequences), before sharding
  std::vector<TraceNode> nodes;
};

}  // namespace scoville::workloads
