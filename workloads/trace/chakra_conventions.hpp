// The numbers Scoville writes into Chakra's own fields so that ASTRA-sim runs a trace to the end
// and reads each amount as Scoville means it (docs/traces-chakra.md, "Conventions"):
//   - comm_size per collective type as ASTRA-sim's collective algorithms read it;
//   - no zero-work node (ASTRA-sim's roofline divides num_ops by the rate it derives from
//     num_ops / tensor_size, and skips a node of tensor_size 0 without releasing its users);
//   - duration_micros as whole microseconds whose running sum follows the exact running sum.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/base/units.hpp"
#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads::chakra {

// The smallest amount a Chakra node carries: a node with no FLOPs or no bytes is written with 1
// (1 FLOP, 1 byte), which ASTRA-sim costs at under a nanosecond [ASSUMPTION: the least whole
// amount that keeps its roofline finite; the exact amounts travel in scoville.* attributes].
inline constexpr int64_t kMinimalAmount = 1;

// A quantity as a whole number >= kMinimalAmount (rounded to nearest; saturates at INT64_MAX).
int64_t whole_amount(double value);

// comm_size of a collective, in ASTRA-sim's convention (astra-sim/system/astraccl/
// native_collectives/collective_algorithm/Ring.cc, HalvingDoubling.cc, Sys::generate_*):
//   all-reduce:     the buffer each rank reduces (msg = size / n, 2(n-1) steps)
//   all-gather:     each rank's input shard (msg = size, final = size x n)
//   reduce-scatter: each rank's input buffer (msg = size / n, final = size / n)
//   all-to-all:     each rank's send buffer, its own share included (msg = size / n)
//   broadcast, send, recv: the message.
// Collective::bytes keeps the local shard for reduce-scatter (its output), so that one is
// multiplied by the group size; the others are written as they are.
double comm_size_of(const Collective& collective);

// The inverse for an imported node: Collective::bytes from comm_size and the group size.
Bytes bytes_from_comm_size(CollectiveKind kind, double comm_size, int64_t group_size);

// Whole microseconds for consecutive durations (seconds, >= 0) such that every prefix sum of the
// result is the prefix sum of the exact values rounded to the nearest microsecond: a chain of
// replayed nodes then ends within half a microsecond of the exact time, however short each node.
std::vector<int64_t> micros_with_carry(const std::vector<double>& seconds);

}  // namespace scoville::workloads::chakra
