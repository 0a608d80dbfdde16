// Each compute node's time on Scoville's chip model, for traces exported with durations
// (Chakra duration_micros) and for multi-rank trace runs. Every trace's compute nodes run in
// trace order on their own ChipModule, all modules in one simulation (SystemC elaborates one
// design per process: call once per process).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "models/chip/chip_params.hpp"
#include "workloads/trace/chip_trace.hpp"

namespace scoville::engine {

// Per trace: node id -> the time the node adds on the chip, its end minus the previous compute
// node's end (the first: minus its start), so that the times of a trace sum to its compute time
// from the first op's start to the last op's end even where the chip overlaps neighbouring ops.
// A trace without compute nodes gets an empty map.
std::vector<std::map<uint64_t, Duration>> chip_compute_durations(
    const std::vector<const workloads::ChipTrace*>& traces, const models::ChipParams& chip);

}  // namespace scoville::engine
