// The report's charts of one run file: for a chip run (`scoville run`), the phase time of each
// chip split by what bounds its ops and the phase energy by component; for a system run
// (`scoville run --system`), each phase's time and energy by component (/components). The power
// timeline has its own module (power_timeline_chart).
#pragma once

#include <sstream>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// Appends the charts to `out`, their ids numbered from `next_id` (advanced); returns how many.
int render_run_charts(std::ostringstream& out, const H5Document& doc, int& next_id);

}  // namespace scoville::output
