#include "models/power/power_accounting.hpp"

#include <algorithm>

namespace scoville::models {

EnergyBreakdown at_operating_point(const EnergyBreakdown& nominal, const DvfsCurve& curve,
                                   Frequency f) {
  const double dynamic = curve.dynamic_energy_scale(f);
  EnergyBreakdown e = nominal;
  e.matrix = nominal.matrix * dynamic;
  e.vector = nominal.vector * dynamic;
  e.tile_sram = nominal.tile_sram * dynamic;
  e.shared_sram = nominal.shared_sram * dynamic;
  e.noc = nominal.noc * dynamic;
  e.active = nominal.active * curve.dynamic_power_scale(f);
  e.static_energy = nominal.static_energy * curve.static_power_scale(f);
  return e;
}

EnergyBreakdown at_clock_blend(const EnergyBreakdown& nominal, const DvfsCurve& curve,
                               const ClockBlend& blend, double low_time_share) {
  const EnergyBreakdown high = at_operating_point(nominal, curve, blend.high);
  if (!blend.blended()) return high;
  const EnergyBreakdown low = at_operating_point(nominal, curve, blend.low);
  const double x = blend.low_share;
  EnergyBreakdown e = high;
  e.matrix = high.matrix * (1.0 - x) + low.matrix * x;
  e.vector = high.vector * (1.0 - x) + low.vector * x;
  e.tile_sram = high.tile_sram * (1.0 - x) + low.tile_sram * x;
  e.shared_sram = high.shared_sram * (1.0 - x) + low.shared_sram * x;
  e.noc = high.noc * (1.0 - x) + low.noc * x;
  e.static_energy =
      high.static_energy * (1.0 - low_time_share) + low.static_energy * low_time_share;
  return e;
}

Energy gating_saving(Energy static_energy, const GatingParams& gating, double busy_fraction) {
  if (!gating.enabled) return Energy();
  const double idle = 1.0 - std::clamp(busy_fraction, 0.0, 1.0);
  return static_energy * (gating.matrix_static_share * idle * (1.0 - gating.residual));
}

Power idle_power(Power static_nominal, const PowerManagementParams& pm) {
  if (!pm.present || pm.points.empty()) return static_nominal;
  const DvfsCurve curve(pm.points, pm.frequency_step);
  const Power at_lowest = static_nominal * curve.static_power_scale(curve.lowest());
  const Power saved = pm.gating.enabled
                          ? at_lowest * (pm.gating.matrix_static_share * (1.0 - pm.gating.residual))
                          : Power();
  return at_lowest - saved;
}

}  // namespace scoville::models
