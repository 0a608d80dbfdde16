#include "models/power/clock_blend.hpp"

namespace scoville::models {

SpanCost ClockBlend::cost(const SpanCost& at_high, const SpanCost& at_low) const {
  if (!blended()) return at_high;
  const double x = low_share;
  return SpanCost{at_high.time * (1.0 - x) + at_low.time * x,
                  at_high.energy * (1.0 - x) + at_low.energy * x};
}

double ClockBlend::low_time_share(const SpanCost& at_high, const SpanCost& at_low) const {
  if (!blended()) return 0;
  const SpanCost whole = cost(at_high, at_low);
  return whole.time.si() > 0 ? at_low.time * low_share / whole.time : 0;
}

}  // namespace scoville::models
