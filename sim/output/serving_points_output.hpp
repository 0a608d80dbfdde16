// A serving sweep's points as a terminal table, JSON, and the HDF5 results file (/points,
// /requests, /serving_power), and the per-pool, per-phase power report.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/output/h5_writer.hpp"
#include "sim/serving/serving_point.hpp"

namespace scoville::output {

void print_points_table(std::ostream& out, const std::vector<serving::ServingPoint>& points);
void print_points_json(std::ostream& out, const std::string& header_fields,
                       const std::vector<serving::ServingPoint>& points);
// /points (one row per point: identity columns and every metric) and /requests (one row per
// request, with its point index), written atomically.
void write_points_h5(const std::string& path, const std::vector<serving::ServingPoint>& points,
                     int argc, const char* const* argv, uint64_t seed,
                     const std::vector<std::pair<std::string, std::string>>& attributes);

// One line per pool and phase: average and peak power per component, throttled share,
// effective clock; then the idle share and energy.
void print_power_report(std::ostream& out, const serving::ServingPoint& point);

// /serving_power: one row per point, pool and phase (J, W, s, Hz).
Table serving_power_table(const std::vector<serving::ServingPoint>& points);

}  // namespace scoville::output
