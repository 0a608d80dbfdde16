// The pure power-management models: the V-f curve, the cap controller against a simulated
// chip, and the pricing of spans at an operating point and under gating.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/power/cap_controller.hpp"
#include "models/power/dvfs_curve.hpp"
#include "models/power/power_accounting.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

PowerManagementParams three_points() {
  PowerManagementParams pm;
  pm.present = true;
  pm.points = {{Frequency(0.6e9), Voltage(0.60)},
               {Frequency(0.9e9), Voltage(0.68)},
               {Frequency(1.1e9), Voltage(0.75)}};
  pm.frequency_step = Frequency(25e6);
  pm.time_constant = Duration(1e-3);
  pm.cap = Power(400);
  return pm;
}

// A chip doing compute-bound work: each span is a fixed amount of work taking `nominal_span`
// at the nominal clock (longer at a lower one), drawing static S at V plus dynamic D at f V^2.
struct Plant {
  Power static_nominal;
  Power dynamic_nominal;
  Duration nominal_span;
};

struct RunTotals {
  Energy energy;
  Duration time;
  Power average() const { return energy / time; }
};

RunTotals run(CapController& c, const Plant& plant, int spans) {
  RunTotals t;
  const DvfsCurve& curve = c.curve();
  for (int i = 0; i < spans; ++i) {
    const Frequency f = c.frequency();
    const Duration dt = plant.nominal_span * (curve.nominal().frequency / f);
    const Power s = plant.static_nominal * curve.static_power_scale(f);
    const Power p = s + plant.dynamic_nominal * curve.dynamic_power_scale(f);
    t.energy += p * dt;
    t.time += dt;
    c.observe(dt, p, s);
  }
  return t;
}

}  // namespace

TEST_CASE("DVFS curve interpolates voltage and scales power from the nominal point", "[power]") {
  const PowerManagementParams pm = three_points();
  const DvfsCurve curve(pm.points, pm.frequency_step);
  CHECK(curve.nominal().frequency == Frequency(1.1e9));
  CHECK(curve.dynamic_energy_scale(Frequency(1.1e9)) == 1.0);
  CHECK(curve.static_power_scale(Frequency(1.1e9)) == 1.0);
  CHECK(curve.dynamic_power_scale(Frequency(1.1e9)) == 1.0);
  // Halfway between the 0.9 and 1.1 GHz points.
  const Voltage mid = curve.voltage_at(Frequency(1.0e9));
  CHECK(mid.si() == Approx((0.68 + 0.75) / 2));
  CHECK(curve.voltage_at(Frequency(0.1e9)) == Voltage(0.60));  // clamped
  const double v = mid.si() / 0.75;
  CHECK(curve.dynamic_energy_scale(Frequency(1.0e9)) == Approx(v * v));
  CHECK(curve.static_power_scale(Frequency(1.0e9)) == Approx(v));
  CHECK(curve.dynamic_power_scale(Frequency(1.0e9)) == Approx(1.0 / 1.1 * v * v));
  // Grid: nominal down to the lowest point in 25 MHz steps, points included.
  const auto& grid = curve.grid();
  CHECK(grid.front() == Frequency(0.6e9));
  CHECK(grid.back() == Frequency(1.1e9));
  CHECK(grid.size() == static_cast<size_t>(std::lround((1.1e9 - 0.6e9) / 25e6)) + 1);
}

TEST_CASE("a cap above the chip's power never throttles", "[power]") {
  PowerManagementParams pm = three_points();
  const Plant plant{Power(80), Power(300), Duration(50e-6)};
  pm.cap = Power(380.0001);  // just above S + D
  CapController c(pm, plant.static_nominal);
  run(c, plant, 1000);
  CHECK(c.frequency() == Frequency(1.1e9));
  CHECK_FALSE(c.throttled());
}

TEST_CASE("a chip over its cap throttles to within 2% of it on average", "[power]") {
  PowerManagementParams pm = three_points();
  const Plant plant{Power(80), Power(500), Duration(50e-6)};
  for (const double cap : {300.0, 400.0, 500.0}) {
    pm.cap = Power(cap);
    CapController c(pm, plant.static_nominal);
    // 100 time constants: the first one, before the average exceeds the cap, is paid back.
    const RunTotals t = run(c, plant, 2000);
    INFO("cap " << cap << " W, average " << t.average().si() << " W");
    CHECK(c.throttled());
    CHECK(std::fabs(t.average().si() - cap) <= 0.02 * cap);
  }
}

TEST_CASE("the cap controller raises the clock back when power falls", "[power]") {
  PowerManagementParams pm = three_points();
  CapController c(pm, Power(80));
  run(c, Plant{Power(80), Power(500), Duration(50e-6)}, 400);
  REQUIRE(c.throttled());
  // Light work: 100 W dynamic at nominal fits under the 400 W cap at any clock.
  run(c, Plant{Power(80), Power(100), Duration(50e-6)}, 400);
  CHECK(c.frequency() == Frequency(1.1e9));
}

TEST_CASE("the cap controller is deterministic", "[power]") {
  const PowerManagementParams pm = three_points();
  const Plant plant{Power(80), Power(500), Duration(37e-6)};
  CapController a(pm, plant.static_nominal);
  CapController b(pm, plant.static_nominal);
  const RunTotals ta = run(a, plant, 777);
  const RunTotals tb = run(b, plant, 777);
  CHECK(ta.energy == tb.energy);
  CHECK(ta.time == tb.time);
  CHECK(a.frequency() == b.frequency());
}

TEST_CASE("a span priced at an operating point scales on-chip energy only", "[power]") {
  const PowerManagementParams pm = three_points();
  const DvfsCurve curve(pm.points, pm.frequency_step);
  EnergyBreakdown nominal;
  nominal.matrix = Energy(10);
  nominal.vector = Energy(2);
  nominal.tile_sram = Energy(3);
  nominal.shared_sram = Energy(4);
  nominal.noc = Energy(5);
  nominal.hbm = Energy(6);
  nominal.link = Energy(7);
  nominal.active = Energy(9);
  nominal.static_energy = Energy(8);
  const EnergyBreakdown same = at_operating_point(nominal, curve, curve.nominal().frequency);
  CHECK(same.by_component() == nominal.by_component());
  const Frequency low(0.6e9);
  const EnergyBreakdown e = at_operating_point(nominal, curve, low);
  const double v = 0.60 / 0.75;
  CHECK(e.matrix.si() == Approx(10 * v * v));
  CHECK(e.noc.si() == Approx(5 * v * v));
  CHECK(e.hbm == nominal.hbm);
  CHECK(e.link == nominal.link);
  CHECK(e.static_energy.si() == Approx(8 * v));
  // Active power at the lower clock: f V^2 (0.6 of 1.1 GHz), over the caller's stretched time.
  CHECK(e.active.si() == Approx(9 * (0.6 / 1.1) * v * v));
}

TEST_CASE("gating saves the idle matrix share of static energy, and idle power", "[power]") {
  PowerManagementParams pm = three_points();
  pm.gating.enabled = true;
  pm.gating.matrix_static_share = 0.3;
  pm.gating.residual = 0.05;
  const Energy saved = gating_saving(Energy(100), pm.gating, 0.25);
  CHECK(saved.si() == Approx(100 * 0.3 * 0.75 * 0.95));
  CHECK(gating_saving(Energy(100), pm.gating, 1.0).si() == 0.0);
  const Power idle = idle_power(Power(80), pm);
  const double at_lowest = 80 * 0.60 / 0.75;
  CHECK(idle.si() == Approx(at_lowest * (1 - 0.3 * 0.95)));
  pm.gating.enabled = false;
  CHECK(idle_power(Power(80), pm).si() == Approx(at_lowest));
  CHECK(idle_power(Power(80), PowerManagementParams{}) == Power(80));
}
