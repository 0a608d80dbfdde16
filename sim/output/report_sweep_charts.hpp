// The report's charts of a study sweep's index (sweep.h5 of `scoville sweep`, docs/sweeps.md):
// key metrics of its done points (/results, each point's /summary rows) against the first
// numeric axis that varies, one series per value of the other axes and chip; with no numeric
// axis, bars per point. A scenario sweep's points are serving points (report_serving_charts).
#pragma once

#include <sstream>

#include "sim/output/h5_writer.hpp"

namespace scoville::output {

// Appends the charts to `out`, ids from `next_id` (advanced); returns how many.
int render_sweep_charts(std::ostringstream& out, const H5Document& doc, int& next_id);

}  // namespace scoville::output
