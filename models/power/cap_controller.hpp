// A power-cap controller, as a chip's power-management firmware runs it: it watches an
// exponential moving average of the chip's power with time constant tau, and while that is over
// the cap it sets the clock so that the *average* power comes back to the cap.
//
// Law (deterministic, evaluated after every observed span; per op in the engine):
//   avg  <- avg + (p - avg) (1 - exp(-dt / tau))           (starts at the first span's power)
//   unthrottled and avg <= cap -> stay at the nominal point, debt = 0 (so a cap above the
//                                 chip's peak power changes nothing, bit for bit);
//   otherwise  debt <- max(debt + (p - cap) dt, -cap tau)   (energy drawn above the cap)
//              target = cap - debt / tau                    (pays the debt back over ~tau)
//   and the next clock is the grid clock whose predicted power is nearest the target, where the
//   prediction from the last span is
//     p(f) = S_nom s(f) + D_last (f V(f)^2) / (f_last V_last^2)
//   (S_nom s(f): static power at f; D_last: the last span's dynamic power). The integral of
//   (p - cap) is what makes the long-run average meet the cap despite the clock grid; rounding
//   to the nearest grid clock keeps the quantisation error unbiased. Once the work gets lighter
//   the same law raises the clock, back to nominal.
#pragma once

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
  // updates the moving average and chooses the clock for what follows.
  void observe(Duration dt, Power total, Power static_part);

 private:
  DvfsCurve curve_;
  Power cap_;
  Duration tau_;
  Power static_nominal_;
  Frequency frequency_;
  Power average_;
  Energy debt_;  // integral of (power - cap) since throttling began
  bool started_ = false;
};

}  // namespace scoville::models
