// The voltage-frequency curve of a chip's operating points, and how power scales along it:
// dynamic energy per action goes with V^2 (switched capacitance C V^2), so dynamic power at a
// fixed activity per cycle goes with f V^2; static (leakage) power goes with V [ASSUMPTION: the
// first-order term; real leakage rises faster than linearly with V and with temperature].
#pragma once

#include <vector>

#include "models/power/power_management_params.hpp"
#include "sim/base/units.hpp"

namespace scoville::models {

class DvfsCurve {
 public:
  // `points` ascending in frequency, at least one; the last is the nominal point, at which the
  // energy table and the chip's static power are quoted.
  explicit DvfsCurve(std::vector<OperatingPoint> points, Frequency step = Frequency(0));

  const OperatingPoint& nominal() const { return points_.back(); }
  Frequency lowest() const { return points_.front().frequency; }
  // Voltage at f, linear between the neighbouring points, clamped to the ends.
  Voltage voltage_at(Frequency f) const;
  // Every frequency the controller may choose, ascending: the points, plus every multiple of
  // `step` below the nominal one down to the lowest point when a step is given.
  const std::vector<Frequency>& grid() const { return grid_; }

  // Factor on dynamic energy per action at f against the nominal point: (V/V_nom)^2.
  double dynamic_energy_scale(Frequency f) const;
  // Factor on static power at f against the nominal point: V/V_nom.
  double static_power_scale(Frequency f) const;
  // Factor on dynamic power at fixed activity per cycle: (f/f_nom) (V/V_nom)^2.
  double dynamic_power_scale(Frequency f) const;

 private:
  std::vector<OperatingPoint> points_;
  std::vector<Frequency> grid_;
};

}  // namespace scoville::models
