// `scoville validate -o`: the predicted rows as the /validation results table (HDF5 or CSV
// through sim/output/table_file.hpp), which `scoville report` charts (predicted against
// measured, MAPE per system: sim/output/validation_chart.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/output/h5_writer.hpp"
#include "sim/validation/validation_run.hpp"

namespace scoville::validation {

// What the rows were predicted with, recorded as the table's attributes.
struct ValidationRunInfo {
  std::string measurements;  // the measurements file read
  std::string fidelity;      // "op-table" or "roofline"
  std::string software;      // the --software setting ("per row" when each row's own)
  bool calibration = true;
};

// One row per predicted measurement (skipped rows are counted in the attribute skipped_rows):
// identity (id, system as published and its arch/systems file, model as published, workload model,
// chip, stack, fit set, metric) as strings; isl, osl, concurrency, replica chips as integers;
// measured and predicted throughput per chip and interactivity (tok/s and tok/s/user, units 1/s;
// NaN where the row publishes no interactivity) and their signed errors (predicted / measured - 1,
// a fraction).
output::Table validation_table(const std::vector<Outcome>& outcomes, const ValidationRunInfo& info);

}  // namespace scoville::validation
