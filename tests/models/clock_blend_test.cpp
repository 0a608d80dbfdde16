// Sub-op control (models/power/clock_blend.hpp, CapController::choose_blend): a span run as a
// blend of two adjacent grid clocks meets the controller's goal exactly, and a chip over its cap
// on spans much longer than the time constant averages the cap, which one clock per span cannot.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/power/cap_controller.hpp"
#include "models/power/clock_blend.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

PowerManagementParams grid_25mhz(Duration tau) {
  PowerManagementParams pm;
  pm.present = true;
  pm.points = {{Frequency(0.6e9), Voltage(0.60)},
               {Frequency(0.9e9), Voltage(0.68)},
               {Frequency(1.1e9), Voltage(0.75)}};
  pm.frequency_step = Frequency(25e6);
  pm.time_constant = tau;
  pm.cap = Power(400);
  return pm;
}

// A span of fixed work: `clock_bound` of its nominal time stretches as 1/f, the rest (HBM)
// does not; static S at V, dynamic D at f V^2 while the clock-bound part runs, as the chip is.
struct Span {
  Duration clock_bound;
  Duration fixed;
  Power static_nominal;
  Power dynamic_nominal;

  SpanCost at(const DvfsCurve& curve, Frequency f) const {
    const double slow = curve.nominal().frequency / f;
    const Duration time = clock_bound * slow + fixed;
    const Energy dynamic = dynamic_nominal * clock_bound * curve.dynamic_energy_scale(f);
    const Energy leak = static_nominal * curve.static_power_scale(f) * time;
    return SpanCost{time, dynamic + leak};
  }
};

struct Totals {
  Energy energy;
  Duration time;
  Power average() const { return energy / time; }
};

// Runs `spans` spans through the controller; with `blend`, sub-op control chooses each span's
// clocks from its exact cost, else one clock per span (the forecast law).
Totals run(CapController& c, const Span& span, int spans, bool blend) {
  Totals t;
  const DvfsCurve& curve = c.curve();
  const auto price = [&](Frequency f) { return span.at(curve, f); };
  for (int i = 0; i < spans; ++i) {
    SpanCost cost = price(c.frequency());
    Energy leak = span.static_nominal * curve.static_power_scale(c.frequency()) * cost.time;
    if (blend) {
      const ClockBlend& b = c.choose_blend(price, c.frequency());
      const SpanCost high = price(b.high);
      const SpanCost low = price(b.low);
      cost = b.cost(high, low);
      const double low_time = b.low_time_share(high, low);
      leak = span.static_nominal * cost.time *
             (curve.static_power_scale(b.high) * (1 - low_time) +
              curve.static_power_scale(b.low) * low_time);
    }
    t.energy += cost.energy;
    t.time += cost.time;
    c.observe(cost.time, cost.energy / cost.time, leak / cost.time);
  }
  return t;
}

}  // namespace

TEST_CASE("a blend of two adjacent grid clocks meets its excess goal exactly", "[power][blend]") {
  const DvfsCurve curve = CapController(grid_25mhz(Duration(1e-3)), Power(80)).curve();
  const Span span{Duration(4e-3), Duration(1e-3), Power(80), Power(500)};
  const auto price = [&](Frequency f) { return span.at(curve, f); };
  const Power cap(400);
  const auto excess = [&](const SpanCost& c) { return (c.energy - cap * c.time).si(); };
  const std::vector<Frequency>& grid = curve.grid();
  for (const double goal : {-0.3, -0.1, 0.0, 0.05}) {
    INFO("goal " << goal << " J");
    // Every starting guess lands on the same blend.
    const ClockBlend first = blend_for_excess(grid, cap, Energy(goal), price, 0);
    for (size_t guess = 0; guess < grid.size(); guess += 3) {
      const ClockBlend b = blend_for_excess(grid, cap, Energy(goal), price, guess);
      CHECK(b.high == first.high);
      CHECK(b.low == first.low);
      CHECK(b.low_share == first.low_share);
    }
    REQUIRE(first.blended());
    // Adjacent grid clocks, and the blended span's excess is the goal.
    CHECK(std::fabs((first.high - first.low).si() - 25e6) < 1.0);
    CHECK(excess(first.cost(price(first.high), price(first.low))) == Approx(goal).margin(1e-12));
  }
  // Out of reach below: the lowest clock whole; above: the nominal clock whole.
  const ClockBlend floor = blend_for_excess(grid, cap, Energy(-100), price, 10);
  CHECK(floor.high == grid.front());
  CHECK_FALSE(floor.blended());
  const ClockBlend top = blend_for_excess(grid, cap, Energy(100), price, 3);
  CHECK(top.high == grid.back());
  CHECK_FALSE(top.blended());
}

TEST_CASE("spans three time constants long average the cap with sub-op control only",
          "[power][blend]") {
  // 30 ms spans against a 10 ms constant, as the H200 prefill's matmuls (15-36 ms) against its
  // controller: one clock per span swings the debt from span to span.
  const PowerManagementParams pm = grid_25mhz(Duration(10e-3));
  const Span heavy{Duration(25e-3), Duration(5e-3), Power(80), Power(600)};
  for (const double cap : {300.0, 400.0, 500.0}) {
    PowerManagementParams capped = pm;
    capped.cap = Power(cap);
    CapController blended(capped, heavy.static_nominal);
    const Totals b = run(blended, heavy, 200, true);
    CapController single(capped, heavy.static_nominal);
    const Totals s = run(single, heavy, 200, false);
    INFO("cap " << cap << " W: blended " << b.average().si() << " W, one clock per span "
                << s.average().si() << " W");
    // Exact to the debt left by the last span; one clock per span lands off by the grid.
    CHECK(std::fabs(b.average().si() - cap) <= cap * 0.002);
    CHECK(std::fabs(b.average().si() - cap) < std::fabs(s.average().si() - cap));
    CHECK(blended.throttled());
  }
}

TEST_CASE("a span that would take the average over the cap is regulated from its start",
          "[power][blend]") {
  PowerManagementParams pm = grid_25mhz(Duration(10e-3));
  pm.cap = Power(300);
  const Span light{Duration(2e-3), Duration(8e-3), Power(80), Power(100)};
  const Span heavy{Duration(40e-3), Duration(0), Power(80), Power(600)};
  CapController c(pm, Power(80));
  run(c, light, 10, true);
  REQUIRE_FALSE(c.throttled());
  REQUIRE_FALSE(c.regulating());
  const DvfsCurve& curve = c.curve();
  const ClockBlend& b =
      c.choose_blend([&](Frequency f) { return heavy.at(curve, f); }, curve.nominal().frequency);
  CHECK(c.regulating());
  const SpanCost cost = b.cost(heavy.at(curve, b.high), heavy.at(curve, b.low));
  // Nothing owed yet: the span draws the cap exactly.
  CHECK((cost.energy / cost.time).si() == Approx(300).epsilon(1e-9));
  // A cap above the span's power changes nothing.
  pm.cap = Power(10e3);
  CapController free(pm, Power(80));
  const ClockBlend& none =
      free.choose_blend([&](Frequency f) { return heavy.at(curve, f); }, Frequency(0.6e9));
  CHECK_FALSE(none.blended());
  CHECK(none.high == curve.nominal().frequency);
  CHECK_FALSE(free.throttled());
}

TEST_CASE("hysteresis keeps the credit of a light span between heavy ones", "[power][blend]") {
  // Heavy spans over the cap with light ones between: without hysteresis the controller lets
  // go after each light span and forgets its credit, so the run averages below the cap.
  const Span heavy{Duration(12e-3), Duration(0), Power(80), Power(600)};
  const Span light{Duration(0.1e-3), Duration(0.9e-3), Power(80), Power(50)};
  const auto average = [&](double hysteresis) {
    PowerManagementParams pm = grid_25mhz(Duration(10e-3));
    pm.cap = Power(350);
    pm.hysteresis = hysteresis;
    CapController c(pm, Power(80));
    Totals t;
    for (int i = 0; i < 100; ++i) {
      for (const Span* s : {&heavy, &light}) {
        const Totals one = run(c, *s, 1, true);
        t.energy += one.energy;
        t.time += one.time;
      }
    }
    return t.average().si();
  };
  const double with = average(0.2);
  const double without = average(0);
  INFO("hysteresis 0.2: " << with << " W, none: " << without << " W");
  CHECK(with >= 350 * 0.98);
  CHECK(with <= 350 * 1.005);
  CHECK(without < with);
}
