// Chips that meet at every collective. A collective (a TP all-reduce, the MoE dispatch and
// combine all-to-alls, ...) cannot finish before its last participant reaches it, so the compute
// between two consecutive collectives (a segment) ends when the group's slowest chip ends it:
//   group time = sum over segments of (max over chips of the segment's compute) + collectives.
// Pure functions on per-op times; the system engine applies them after the SystemC run (chips do
// not interact inside SystemC: each has its own memories).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/base/units.hpp"

namespace scoville::engine {

// For each op, the chip whose time counts: in each segment the chip with the largest compute sum
// (the first one on ties). `op_time[c][i]` is chip c's time for op i, every chip with the same ops;
// `segment[i]` the segment of op i (non-decreasing: a collective between ops i and i+1 raises it).
// Throws std::invalid_argument for no chips or mismatched sizes.
std::vector<size_t> critical_chips(const std::vector<std::vector<Duration>>& op_time,
                                   const std::vector<int64_t>& segment);

// The group's compute time: sum over segments of the largest chip's sum.
Duration synchronised_compute_time(const std::vector<std::vector<Duration>>& op_time,
                                   const std::vector<int64_t>& segment);

}  // namespace scoville::engine
