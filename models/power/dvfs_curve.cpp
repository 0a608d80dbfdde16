#include "models/power/dvfs_curve.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scoville::models {

DvfsCurve::DvfsCurve(std::vector<OperatingPoint> points, Frequency step)
    : points_(std::move(points)) {
  if (points_.empty()) throw std::invalid_argument("DvfsCurve needs at least one point");
  for (const OperatingPoint& p : points_) grid_.push_back(p.frequency);
  if (step.si() > 0) {
    // Walk down from the nominal clock in whole steps, as a clock generator with a fixed
    // divider resolution does; the nominal and listed points stay exact.
    const double top = nominal().frequency.si();
    if ((top - lowest().si()) / step.si() > 1e6) {
      throw std::invalid_argument("DvfsCurve: frequency step too fine for the range");
    }
    for (int64_t k = 1;; ++k) {
      const double f = top - static_cast<double>(k) * step.si();
      if (f < lowest().si()) break;
      grid_.push_back(Frequency(f));
    }
  }
  std::sort(grid_.begin(), grid_.end());
  grid_.erase(std::unique(grid_.begin(), grid_.end()), grid_.end());
}

Voltage DvfsCurve::voltage_at(Frequency f) const {
  if (f <= points_.front().frequency) return points_.front().voltage;
  if (f >= points_.back().frequency) return points_.back().voltage;
  for (size_t i = 1; i < points_.size(); ++i) {
    const OperatingPoint& hi = points_[i];
    if (f > hi.frequency) continue;
    const OperatingPoint& lo = points_[i - 1];
    const double t = (f - lo.frequency) / (hi.frequency - lo.frequency);
    return lo.voltage + (hi.voltage - lo.voltage) * t;
  }
  return points_.back().voltage;
}

double DvfsCurve::dynamic_energy_scale(Frequency f) const {
  const double v = voltage_at(f) / nominal().voltage;
  return v * v;
}

double DvfsCurve::static_power_scale(Frequency f) const {
  return voltage_at(f) / nominal().voltage;
}

double DvfsCurve::dynamic_power_scale(Frequency f) const {
  return f / nominal().frequency * dynamic_energy_scale(f);
}

}  // namespace scoville::models
