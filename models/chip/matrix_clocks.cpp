#include "models/chip/matrix_clocks.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "models/power/dvfs_curve.hpp"

namespace scoville::models {

namespace {

// Voltage ratio V(f) / V_nom along the chip's DVFS curve; 1 without one (dynamic power then
// scales with f alone and static power not at all).
struct PowerScaling {
  explicit PowerScaling(const ChipParams& chip) : nominal(chip.tiles.clock) {
    if (chip.power.management.present && !chip.power.management.points.empty()) {
      curve.emplace(chip.power.management.points, chip.power.management.frequency_step);
    }
  }
  double static_scale(Frequency f) const { return curve ? curve->static_power_scale(f) : 1.0; }
  double dynamic_scale(Frequency f) const {
    return curve ? curve->dynamic_power_scale(f) : f / nominal;
  }
  Frequency lowest() const { return curve ? curve->lowest() : nominal * 0.1; }

  Frequency nominal;
  std::optional<DvfsCurve> curve;
};

}  // namespace

Frequency power_limited_matrix_clock(const ChipParams& chip, MathPrecision p,
                                     double busy_fraction) {
  const MatrixEngineParams& e = chip.tiles.matrix;
  const Frequency f_nom = chip.tiles.clock;
  if (e.sustained_clock.si() <= 0 || !e.supports(p)) return f_nom;
  const MathPrecision a = e.sustained_clock_precision;
  const bool whole_chip = !(busy_fraction < 1.0);
  if (!e.supports(a) || (p == a && whole_chip)) return e.sustained_clock;
  const PowerScaling scaling(chip);
  const double tdp = chip.power.tdp.si();
  const double s = chip.power.static_power.si();
  const Frequency f_a = e.sustained_clock;
  const double d_a = (tdp - s * scaling.static_scale(f_a)) / scaling.dynamic_scale(f_a);
  const double tiles = static_cast<double>(chip.tiles.count);
  const double mac_energy_per_cycle =
      static_cast<double>(e.macs_per_cycle(p)) * chip.energy.per_mac[index_of(p)].si() -
      static_cast<double>(e.macs_per_cycle(a)) * chip.energy.per_mac[index_of(a)].si();
  double d_p = d_a + f_nom.si() * tiles * mac_energy_per_cycle;
  if (!whole_chip) {
    const double chip_wide = std::min(chip.power.active_power.si(), d_p);
    d_p = chip_wide + std::max(0.0, busy_fraction) * (d_p - chip_wide);
  }
  const auto power = [&](Frequency f) {
    return s * scaling.static_scale(f) + scaling.dynamic_scale(f) * d_p;
  };
  if (d_p <= 0 || power(f_nom) <= tdp) return f_nom;
  Frequency lo = scaling.lowest();
  if (power(lo) >= tdp) return lo;
  Frequency hi = f_nom;
  // P rises with f (both scales do): bisect to well under a kHz.
  for (int i = 0; i < 60; ++i) {
    const Frequency mid = (lo + hi) * 0.5;
    (power(mid) > tdp ? hi : lo) = mid;
  }
  return lo;
}

void resolve_matrix_clocks(ChipParams& chip) {
  for (MathPrecision p : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
    chip.tiles.matrix.sustained_clock_by_precision[index_of(p)] =
        chip.tiles.matrix.sustained_clock.si() > 0 && chip.tiles.matrix.supports(p)
            ? power_limited_matrix_clock(chip, p)
            : Frequency(0);
  }
}

}  // namespace scoville::models
