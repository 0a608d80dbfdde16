#include "sim/config/power_management_loader.hpp"

#include <string>

namespace scoville::config {

namespace {

constexpr size_t kMaxPoints = 64;        // DVFS tables list tens of points, not thousands
constexpr int64_t kMaxGridSteps = 4096;  // 15 MHz steps over 2 GHz are ~130

models::GatingParams read_gating(MapReader r) {
  models::GatingParams g;
  g.enabled = r.boolean_or("enabled", true);
  g.matrix_static_share = r.number("matrix_static_share", 0.0, 1.0);
  g.residual = r.number_or("residual", 0.0, 0.0, 1.0);
  g.wake_latency = r.quantity<Duration>("wake_latency", Range::kNonNegative);
  g.wake_energy = r.quantity<Energy>("wake_energy", Range::kNonNegative);
  g.phases = r.string_list("phases");
  for (const std::string& phase : g.phases) {
    if (phase != "prefill" && phase != "decode") {
      r.error("phases", "unknown phase '" + phase + "' (known: prefill, decode)");
    }
  }
  r.finish();
  return g;
}

}  // namespace

models::PowerManagementParams read_power_management(MapReader r, Diagnostics& diagnostics,
                                                    Power tdp, Frequency tile_clock) {
  models::PowerManagementParams pm;
  pm.present = true;
  const YAML::Node points = r.raw("points");
  const std::string points_path = r.path().empty() ? "points" : r.path() + ".points";
  if (!points.IsDefined() || points.IsNull()) {
    r.error("points", "missing required field 'points' (a list of {frequency, voltage})");
  } else if (!points.IsSequence() || points.size() == 0 || points.size() > kMaxPoints) {
    r.error("points", "expected a list of 1 to " + std::to_string(kMaxPoints) +
                          " operating points, each {frequency: 1.5 GHz, voltage: 0.8 V}");
  } else {
    for (size_t i = 0; i < points.size(); ++i) {
      MapReader p(points[i], r.file(), points_path + "[" + std::to_string(i) + "]", diagnostics);
      models::OperatingPoint point;
      point.frequency = p.quantity<Frequency>("frequency");
      point.voltage = p.quantity<Voltage>("voltage");
      if (!pm.points.empty() && point.frequency.si() > 0 &&
          !(point.frequency > pm.points.back().frequency)) {
        p.error("frequency", "operating points must be listed in ascending frequency");
      } else if (!pm.points.empty() && point.voltage < pm.points.back().voltage) {
        p.error("voltage", "voltage must not fall as frequency rises");
      }
      p.finish();
      pm.points.push_back(point);
    }
    if (!pm.points.empty() && pm.points.back().frequency != tile_clock &&
        pm.points.back().frequency.si() > 0 && tile_clock.si() > 0) {
      r.error("points", "the highest operating point must be the tile clock (" +
                            format_si(tile_clock.si(), "Hz") +
                            "): the energy table and static power are quoted there");
    }
  }
  pm.cap = r.quantity_or<Power>("cap", tdp);
  pm.time_constant = r.quantity<Duration>("time_constant");
  pm.frequency_step = r.quantity_or<Frequency>("frequency_step", Frequency(0), Range::kNonNegative);
  // Fraction of the cap under which a regulating controller lets go (docs/power.md).
  pm.hysteresis = r.number_or("hysteresis", 0.0, 0.0, 0.5);
  // The controller scans every grid clock after every op: keep the grid a table, not a sweep.
  if (pm.frequency_step.si() > 0 && pm.points.size() > 1 &&
      (pm.points.back().frequency - pm.points.front().frequency) / pm.frequency_step >
          static_cast<double>(kMaxGridSteps)) {
    r.error("frequency_step",
            "gives more than " + std::to_string(kMaxGridSteps) +
                " clocks between the lowest and highest points; use a coarser step");
  }
  if (std::optional<MapReader> gating = r.optional_map("gating")) {
    pm.gating = read_gating(*gating);
  }
  r.finish();
  return pm;
}

}  // namespace scoville::config
