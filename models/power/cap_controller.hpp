// A power-cap controller, as a chip's power-management firmware runs it: it watches an
// exponential moving average of the chip's power with time constant tau, and while that is over
// the cap it sets the clock so that the *average* power comes back to the cap.
//
// Law (deterministic, evaluated after every observed span; per op in the engine):
//   avg  <- avg + (p - avg) (1 - exp(-dt / tau))           (starts at the first span's power)
//   unthrottled, avg <= cap and debt <= 0 -> stay at the nominal point, debt = 0 (so a cap
//                                 above the chip's peak power changes nothing, bit for bit);
//   otherwise  debt <- max(debt + (p - cap) dt, -cap tau)   (energy drawn above the cap)
//              target = cap - debt / tau                    (pays the debt back over ~tau)
//   and the next clock is the grid clock whose predicted power is nearest the target, where
//     p(f) = S_nom s(f) + D_nom (f V(f)^2) / (f_nom V_nom^2)
//   (S_nom s(f): static power at f; D_nom: the next span's dynamic power at the nominal point,
//   by default the last span's scaled there, or a forecast the caller gives). The integral of
//   (p - cap) is what makes the long-run average meet the cap despite the clock grid; rounding
//   to the nearest grid clock keeps the quantisation error unbiased. Once the work gets lighter
//   the same law raises the clock, back to nominal.
//
// Sub-op control (choose_blend): when the caller can price the next span exactly at any grid clock
// (the op table can), the span is run as a blend of two adjacent grid clocks (models/power/
// clock_blend.hpp) whose energy above cap x time pays back the debt over max(tau, the span's
// time): the span's average then meets its target exactly, however long the span is against tau.
// One clock per span cannot: a 15 ms op against a 10 ms constant swings the debt from one op to
// the next, and the H200 default study's prefill averaged 245 W at a 300 W cap.
#pragma once

#include <cmath>

#include "models/power/clock_blend.hpp"
#include "models/power/dvfs_curve.hpp"

namespace scoville::models {

class CapController {
 public:
  // `static_nominal`: the chip's static power at the nominal point.
  CapController(const PowerManagementParams& params, Power static_nominal);

  const DvfsCurve& curve() const { return curve_; }
  Frequency frequency() const { return frequency_; }
  Voltage voltage() const { return curve_.voltage_at(frequency_); }
  // The span runs below the nominal clock for some of its time.
  bool throttled() const {
    return frequency_ < curve_.nominal().frequency ||
           (blend_.blended() && blend_.low < curve_.nominal().frequency);
  }
  bool regulating() const { return regulating_; }
  // The clocks chosen for the next span (one clock unless choose_blend blended two).
  const ClockBlend& blend() const { return blend_; }
  Power average() const { return average_; }
  // Energy drawn above the cap since throttling began, less what was paid back (>= -cap tau).
  Energy debt() const { return debt_; }
  Power cap() const { return cap_; }

  // The chip drew `total` (of which `static_part` static) for `dt` at the current clock;
  // updates the moving average and chooses the clock for what follows, predicting that it
  // draws the same dynamic power per cycle as this span.
  // A blended span (choose_blend) is observed the same way, with its average power.
  void observe(Duration dt, Power total, Power static_part);
  // Dynamic power the last observed span would have drawn at the nominal point.
  Power last_dynamic_at_nominal() const { return dynamic_nominal_last_; }
  // Re-chooses the clock for the next span from a better forecast of its dynamic power at the
  // nominal point (the engine remembers it per op of a repeating layer). No effect while the
  // controller is not regulating (unthrottled, average under the cap).
  void forecast(Power dynamic_at_nominal);
  // Sub-op control: chooses the blend of two adjacent grid clocks for the next span from its
  // exact cost at any grid clock (`price(f)` -> SpanCost), so that its energy above the cap
  // pays back the debt over max(tau, the span's time at nominal); the search starts at `start`
  // (where the same op landed last time). While not regulating it also looks ahead: a span
  // whose run at nominal would take the average over the cap is regulated from its start, as
  // firmware reacting inside the span would (a cap above the span's power changes nothing).
  template <typename Price>
  const ClockBlend& choose_blend(Price price, Frequency start) {
    const SpanCost nominal = price(curve_.nominal().frequency);
    if (!regulating_) {
      if (!(nominal.time.si() > 0)) return blend_;
      const Power at_nominal = nominal.energy / nominal.time;
      const double alpha = tau_.si() > 0 ? 1.0 - std::exp(-(nominal.time / tau_)) : 1.0;
      const Power next = started_ ? average_ + (at_nominal - average_) * alpha : at_nominal;
      if (!(next > cap_)) return blend_;
      regulating_ = true;
      debt_ = Energy();
    }
    const double payback =
        tau_.si() > 0 && nominal.time < tau_ ? nominal.time / tau_ : 1.0;  // of the debt
    const std::vector<Frequency>& grid = curve_.grid();
    size_t guess = 0;
    while (guess + 1 < grid.size() && grid[guess] < start) ++guess;
    blend_ = blend_for_excess(grid, cap_, debt_ * -payback, price, guess);
    frequency_ = blend_.high;
    return blend_;
  }
  // The same with the caller's own prediction of the next span's power at each grid clock (the
  // serving layer prices an iteration exactly at any clock). No effect while not regulating.
  template <typename Predict>
  void forecast_with(Predict predicted_power) {
    if (regulating_) choose_nearest(target(), predicted_power);
  }

 private:
  DvfsCurve curve_;
  Power cap_;
  Duration tau_;
  Power static_nominal_;
  double hysteresis_;
  Frequency frequency_;
  ClockBlend blend_;
  Power average_;
  Energy debt_;  // integral of (power - cap) since throttling began
  Power dynamic_nominal_last_;
  bool regulating_ = false;
  bool started_ = false;

  void choose(Power dynamic_at_nominal);
  // The power the next span should draw: the cap, less the debt paid back over about tau.
  Power target() const { return tau_.si() > 0 ? cap_ - debt_ / tau_ : cap_; }
  // Nearest prediction to the target; on a tie the lower clock (the grid is ascending).
  template <typename Predict>
  void choose_nearest(Power goal, Predict predicted_power) {
    Frequency chosen = curve_.grid().front();
    double best = -1;
    for (const Frequency f : curve_.grid()) {
      const double error = std::fabs((predicted_power(f) - goal).si());
      if (best < 0 || error < best) {
        best = error;
        chosen = f;
      }
    }
    frequency_ = chosen;
    blend_ = ClockBlend{chosen, chosen, 0};
  }
};

}  // namespace scoville::models
