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
#pragma once

#include <cmath>

#include "models/power/dvfs_curve.hpp"

namespace scoville::models {

class CapController {
 public:
  // `static_nominal`: the chip's static power at the nominal point.
  CapController(const PowerManagementParams& params, Power static_nominal);

  const DvfsCurve& curve() const { return curve_; }
  Frequency frequency() const { return frequency_; }
  Voltage voltage() const { return curve_.voltage_at(frequency_); }
  bool throttled() const { return frequency_ < curve_.nominal().frequency; }
  Power average() const { return average_; }
  Power cap() const { return cap_; }

  // The chip drew `total` (of which `static_part` static) for `dt` at the current clock;
  // updates the moving average and chooses the clock for what follows, predicting that it
  // draws the same dynamic power per cycle as this span.
  void observe(Duration dt, Power total, Power static_part);
  // Dynamic power the last observed span would have drawn at the nominal point.
  Power last_dynamic_at_nominal() const { return dynamic_nominal_last_; }
  // Re-chooses the clock for the next span from a better forecast of its dynamic power at the
  // nominal point (the engine remembers it per op of a repeating layer). No effect while the
  // controller is not regulating (unthrottled, average under the cap).
  void forecast(Power dynamic_at_nominal);
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
  Frequency frequency_;
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
  }
};

}  // namespace scoville::models
