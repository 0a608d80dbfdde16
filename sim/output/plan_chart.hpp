// The charts of a `scoville plan` results file (its /plan table) in `scoville report`: goodput
// per chip, and per kW of chip TDP, against interactivity; the configurations that meet the
// latency limits and those that miss them as two series, and the Pareto frontier the search
// marked (its `pareto` column; sim/base/pareto) as a line. Drawn by the one chart module
// (sim/output/svg_chart).
#pragma once

#include <sstream>
#include <string>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// Appends the charts as inline SVG; false (nothing written) when `doc` has no /plan table.
bool render_plan_chart(std::ostringstream& out, const H5Document& doc, const std::string& name);

}  // namespace scoville::output
