// Axis titles of the report's charts for the metrics result files hold: a readable title and
// the unit the file declares for the column (h5 "units" attribute), with "1/s" of a token rate
// shown as tok/s (tok/s/user for interactivity, tok/s/kW per kW of TDP) and "1" as a count.
#pragma once

#include <string>

#include "sim/output/svg_chart.hpp"

namespace scoville::output {

ChartAxis metric_axis(const std::string& column, const std::string& stored_unit);

}  // namespace scoville::output
