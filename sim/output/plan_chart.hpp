// The chart of a `scoville plan` results file (its /plan table) in `scoville report`: goodput
// per chip (left axis) and per kW of chip TDP (right axis: the same points, scaled by 1000 / TDP)
// against interactivity, the points that meet the limits filled, the others hollow, and the
// Pareto frontier the search marked (its `pareto` column; sim/base/pareto).
#pragma once

#include <sstream>
#include <string>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// Appends the chart as inline SVG; false (nothing written) when `doc` has no /plan table.
bool render_plan_chart(std::ostringstream& out, const H5Document& doc, const std::string& name);

}  // namespace scoville::output
