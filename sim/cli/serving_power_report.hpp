// The power side of `scoville serve` and `scoville inferencex` (docs/power.md, "Serving"): a
// power cap from the command line or the scenario, the all-in inputs of a system file's power
// section, and the per-pool, per-phase power report as text and as the HDF5 /serving_power table.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/base/error.hpp"
#include "sim/cli/serving_common.hpp"
#include "sim/output/h5_writer.hpp"

namespace scoville::cli {

// "500 W" or "500W" -> a positive power; InputError at `flag` otherwise.
Power parse_power_cap(const std::string& text, const std::string& flag);

// Caps every chip of `hw` at `cap` (the chip's controller then holds it). InputError at
// (where, key) when the chip has no power_management section.
void apply_power_cap(ServingHardware& hw, const std::optional<Power>& cap,
                     const SourceLocation& where, const std::string& key);

// The all-in inputs (a system file's power section) of the metrics, when the system has one and
// the scenario gives no all-in power per chip of its own.
void set_power_inputs(const ServingHardware& hw, serving::MetricInputs& metrics);

// One line per pool and phase: average and peak power per component, throttled share,
// effective clock; then the idle share and energy.
void print_power_report(std::ostream& out, const ServingPoint& point);

// /serving_power: one row per point, pool and phase (J, W, s, Hz).
output::Table serving_power_table(const std::vector<ServingPoint>& points);

}  // namespace scoville::cli
