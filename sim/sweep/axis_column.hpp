// The column of a sweep axis in sweep.h5's /points: numbers stored as numbers, so that a reader
// sorts and plots an axis by value (batch 1, 4, 16, 64, not "1", "16", "4", "64").
#pragma once

#include <string>
#include <vector>

#include "sim/output/h5_writer.hpp"

namespace scoville::sweep {

// values: one per point, each the axis value as flow YAML. The column is
//   - 64-bit integers (units "1") when every value is a plain integer;
//   - 64-bit floats (units "1") when every value is a plain number;
//   - 64-bit floats in SI units (e.g. "B/s") when every value is a quantity of one dimension
//     (e.g. "1 TB/s", "4.8 TB/s");
//   - text otherwise (names, lists, maps, or a mix).
output::Column axis_column(const std::string& key, const std::vector<std::string>& values);

}  // namespace scoville::sweep
