// Turns a chip's raw per-op records into results: action counts priced by the energy table,
// and the bound classification.
#pragma once

#include "models/chip/chip_module.hpp"
#include "models/compute/work_descriptor.hpp"
#include "sim/stats/results.hpp"

namespace scoville::stats {

// An op is compute- (or HBM-) bound when that resource alone explains at least half of its
// time and more than the other does; otherwise it is "other" (latency, on-chip bandwidth,
// imbalance between tiles).
Bound classify_bound(Duration elapsed, Duration compute_time, Duration hbm_time);

// Counts the actions of one op from what the chip's memories served and what its tiles computed.
models::ActionCounts count_actions(const models::OpRecord& record,
                                   const models::WorkDescriptor& work);

OpResult account_op(const models::OpRecord& record, const models::WorkDescriptor& work,
                    const models::ChipParams& chip, int iteration, int layer,
                    const std::string& kind, Duration iteration_start);

}  // namespace scoville::stats
