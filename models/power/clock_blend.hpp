// Sub-op clock control: a span of work (an op, a kernel) run partly at one grid clock and partly
// at the next one below it, as power-management firmware does when it changes the clock inside a
// kernel. Over the span the two clocks' costs blend by the share of the work done at each, so the
// span's average power can sit anywhere between the two clocks' powers instead of on the clock
// grid: a cap is met within a span even when spans are longer than the controller's time constant
// (docs/power.md, "Sub-op control").
#pragma once

#include <vector>

#include "sim/base/units.hpp"

namespace scoville::models {

// What a span costs when it runs whole at one clock.
struct SpanCost {
  Duration time;
  Energy energy;  // total, static included
};

// The clocks of a span: it starts at `high` and does `low_share` of its work at `low` (the next
// grid clock below; equal to `high` when the span runs at one clock).
struct ClockBlend {
  Frequency high;
  Frequency low;
  double low_share = 0;  // share of the span's work at `low`, [0, 1)

  bool blended() const { return low_share > 0 && low < high; }
  // Time and energy of the blended span from its costs at the two clocks: work shares add.
  SpanCost cost(const SpanCost& at_high, const SpanCost& at_low) const;
  // Share of the span's time spent at `low`.
  double low_time_share(const SpanCost& at_high, const SpanCost& at_low) const;
};

// The blend on `grid` (ascending) whose energy above cap x time is `goal`: excess(f) =
// energy(f) - cap x time(f) rises with the clock, so the answer is the adjacent pair of grid
// clocks that brackets the goal, split linearly in work. Clamped to the lowest clock (the goal is
// out of reach: the lowest clock whole) and to the highest (nominal whole). `price(f)` gives the
// span's cost at a grid clock; the search starts at grid index `guess` (a forecast, or where the
// same op landed last time) and gallops away from it, then bisects: a good guess prices two
// clocks, a bad one about 2 log2(grid size).
template <typename Price>
ClockBlend blend_for_excess(const std::vector<Frequency>& grid, Power cap, Energy goal, Price price,
                            size_t guess) {
  const auto excess = [&](size_t i) {
    const SpanCost c = price(grid[i]);
    return c.energy - cap * c.time;
  };
  const size_t top = grid.size() - 1;
  // Find lo < hi = lo + 1 with excess(lo) <= goal < excess(hi), or clamp.
  size_t lo = guess > top ? top : guess;
  size_t hi = lo;
  if (excess(lo) <= goal) {
    // Gallop up until over the goal (or past the top).
    size_t step = 1;
    for (;;) {
      if (lo == top) return ClockBlend{grid[top], grid[top], 0};  // under it even at nominal
      hi = lo + step > top ? top : lo + step;
      if (excess(hi) > goal) break;
      lo = hi;
      step *= 2;
    }
  } else {
    // Gallop down until at or under the goal (or past the bottom).
    size_t step = 1;
    for (;;) {
      if (hi == 0) return ClockBlend{grid[0], grid[0], 0};  // out of reach: lowest clock
      lo = hi >= step ? hi - step : 0;
      if (excess(lo) <= goal) break;
      hi = lo;
      step *= 2;
    }
  }
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    (excess(mid) <= goal ? lo : hi) = mid;
  }
  const Energy at_lo = excess(lo);
  const Energy at_hi = excess(hi);
  // excess(lo) <= goal < excess(hi): x of the work at lo, 1 - x at hi.
  const double x = (at_hi - goal) / (at_hi - at_lo);
  if (!(x > 0)) return ClockBlend{grid[hi], grid[hi], 0};
  if (!(x < 1)) return ClockBlend{grid[lo], grid[lo], 0};
  return ClockBlend{grid[hi], grid[lo], x};
}

}  // namespace scoville::models
