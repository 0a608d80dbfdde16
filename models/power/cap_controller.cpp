#include "models/power/cap_controller.hpp"

#include <algorithm>
#include <cmath>

namespace scoville::models {

CapController::CapController(const PowerManagementParams& params, Power static_nominal)
    : curve_(params.points, params.frequency_step),
      cap_(params.cap),
      tau_(params.time_constant),
      static_nominal_(static_nominal),
      hysteresis_(params.hysteresis),
      frequency_(curve_.nominal().frequency),
      blend_{frequency_, frequency_, 0} {}

void CapController::observe(Duration dt, Power total, Power static_part) {
  if (dt.si() <= 0) return;
  if (!started_) {
    // The average starts at the first power seen: a chip starting from idle would start lower,
    // which only delays throttling by about tau.
    average_ = total;
    started_ = true;
  } else {
    const double alpha = tau_.si() > 0 ? 1.0 - std::exp(-(dt / tau_)) : 1.0;
    average_ += (total - average_) * alpha;
  }
  // A blended span's dynamic power scale: its two clocks' scales, weighted by work (close to
  // the time weights; only the forecast of the next span uses it).
  const double scale = blend_.blended()
                           ? curve_.dynamic_power_scale(blend_.high) * (1.0 - blend_.low_share) +
                                 curve_.dynamic_power_scale(blend_.low) * blend_.low_share
                           : curve_.dynamic_power_scale(frequency_);
  dynamic_nominal_last_ = (total - static_part) / scale;
  // Energy still owed (debt > 0) keeps the controller regulating even at the nominal clock,
  // so that a short light op that lets the clock back up does not wipe the debt; so does an
  // average within the hysteresis band under the cap once regulating.
  const bool within_band = regulating_ && average_ > cap_ * (1.0 - hysteresis_);
  regulating_ = throttled() || average_ > cap_ || debt_.si() > 0 || within_band;
  if (!regulating_) {
    debt_ = Energy();
    return;
  }
  debt_ = std::max(debt_ + (total - cap_) * dt, cap_ * tau_ * -1.0);
  choose(dynamic_nominal_last_);
}

void CapController::forecast(Power dynamic_at_nominal) {
  if (regulating_) choose(dynamic_at_nominal);
}

void CapController::choose(Power dynamic_at_nominal) {
  choose_nearest(target(), [&](Frequency f) {
    return static_nominal_ * curve_.static_power_scale(f) +
           dynamic_at_nominal * curve_.dynamic_power_scale(f);
  });
}

}  // namespace scoville::models
