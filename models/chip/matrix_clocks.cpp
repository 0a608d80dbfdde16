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

// The clock f in [lowest, top] at which s x static_scale(f) + d x dynamic_scale(f) = limit; top
// when the work draws no more than the limit there, lowest when it draws more even there.
Frequency balance_clock(const PowerScaling& scaling, double s, double d, double limit,
                        Frequency top) {
  const auto power = [&](Frequency f) {
    return s * scaling.static_scale(f) + scaling.dynamic_scale(f) * d;
  };
  if (d <= 0 || power(top) <= limit) return top;
  Frequency lo = scaling.lowest();
  if (power(lo) >= limit) return lo;
  Frequency hi = top;
  // P rises with f (both scales do): bisect to well under a kHz.
  for (int i = 0; i < 60; ++i) {
    const Frequency mid = (lo + hi) * 0.5;
    (power(mid) > limit ? hi : lo) = mid;
  }
  return lo;
}

// D_a: the dynamic power at the nominal point of the work the sustained clock was measured on.
double anchor_dynamic_power(const ChipParams& chip, const PowerScaling& scaling) {
  const Frequency f_a = chip.tiles.matrix.sustained_clock;
  return (chip.power.tdp.si() - chip.power.static_power.si() * scaling.static_scale(f_a)) /
         scaling.dynamic_scale(f_a);
}

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
  const double d_a = anchor_dynamic_power(chip, scaling);
  const double tiles = static_cast<double>(chip.tiles.count);
  const double mac_energy_per_cycle =
      static_cast<double>(e.macs_per_cycle(p)) * chip.energy.per_mac[index_of(p)].si() -
      static_cast<double>(e.macs_per_cycle(a)) * chip.energy.per_mac[index_of(a)].si();
  double d_p = d_a + f_nom.si() * tiles * mac_energy_per_cycle;
  if (!whole_chip) {
    const double chip_wide = std::min(chip.power.active_power.si(), d_p);
    d_p = chip_wide + std::max(0.0, busy_fraction) * (d_p - chip_wide);
  }
  return balance_clock(scaling, chip.power.static_power.si(), d_p, chip.power.tdp.si(), f_nom);
}

Frequency matrix_clock_on_board(const ChipParams& reference, const ChipParams& board) {
  if (reference.tiles.matrix.sustained_clock.si() <= 0) return board.tiles.clock;
  const PowerScaling scaling(reference);
  const double tiles =
      static_cast<double>(board.tiles.count) / static_cast<double>(reference.tiles.count);
  const double d = anchor_dynamic_power(reference, scaling) * tiles;
  return balance_clock(scaling, board.power.static_power.si(), d, board.power.tdp.si(),
                       board.tiles.clock);
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
