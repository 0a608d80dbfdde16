// The power timeline's HDF5 tables (docs/results-format.md): /power_windows (average and peak
// power and mean clock per controller window of every simulated iteration) and /clock_timeline
// (the tile clock over time), for power-managed chips; and the highest window average of a
// phase, the figure a board's power reading would show at its worst.
#pragma once

#include <string>

#include "sim/output/h5_writer.hpp"
#include "sim/stats/results.hpp"

namespace scoville::output {

Table power_windows_table(const std::vector<stats::ChipResult>& chips);
Table clock_timeline_table(const std::vector<stats::ChipResult>& chips);
// The highest window average over the iterations of `phase` (0 W without a timeline).
Power peak_window_power(const stats::ChipResult& chip, const std::string& phase);

}  // namespace scoville::output
