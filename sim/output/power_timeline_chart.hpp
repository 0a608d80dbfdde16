// The power timeline in `scoville report`: per chip, the power of each controller window of its
// first simulated iteration (the prefill: the phase a cap binds in) with the op peaks and the
// cap, and the tile clock over the same time, as inline SVG (from /power_windows and
// /clock_timeline; docs/power.md). Nothing is drawn for a file without those tables.
#pragma once

#include <sstream>
#include <string>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// Appends the charts to `out`; returns how many it drew. `first_id` numbers their ids.
int render_power_timeline(std::ostringstream& out, const H5Document& doc, int first_id);

}  // namespace scoville::output
