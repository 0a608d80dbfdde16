// The charts of a `scoville validate -o` results file (its /validation table) in `scoville
// report`: predicted against measured throughput per chip and interactivity, one series per
// system, with the line y = x and a band of +-15 % around it (the error a prediction is
// expected to stay within), and a table of the mean absolute percentage error per system.
// Drawn by the one chart module (sim/output/svg_chart).
#pragma once

#include <sstream>
#include <string>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// The band drawn around y = x: +-15 %.
inline constexpr double kValidationBand = 0.15;

// Appends the charts and the table; false (nothing written) when `doc` has no /validation table
// with rows.
bool render_validation_charts(std::ostringstream& out, const H5Document& doc,
                              const std::string& name, int& next_id);

}  // namespace scoville::output
