// Energy = counts x table per component + static power x time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "models/chip/chip_params.hpp"  // index_of(MathPrecision)
#include "models/energy/energy_model.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

constexpr double kBitsPerByte = 8.0;

EnergyTable table() {
  EnergyTable t;
  t.name = "test";
  t.per_mac[index_of(MathPrecision::kBf16)] = picojoules(0.5);
  t.per_mac[index_of(MathPrecision::kFp8)] = picojoules(0.25);
  t.per_mac[index_of(MathPrecision::kFp4)] = picojoules(0.125);
  t.per_vector_flop = picojoules(1.5);
  t.tile_sram = picojoules_per_bit(0.1);
  t.shared_sram = picojoules_per_bit(0.4);
  t.noc = picojoules_per_bit(0.3);
  t.hbm = picojoules_per_bit(3.9);
  t.link = picojoules_per_bit(5.0);
  return t;
}

ActionCounts counts(double scale) {
  ActionCounts c;
  c.macs[index_of(MathPrecision::kBf16)] = 1e9 * scale;
  c.macs[index_of(MathPrecision::kFp8)] = 3e8 * scale;
  c.macs[index_of(MathPrecision::kFp4)] = 7e7 * scale;
  c.vector_flops = 2e6 * scale;
  c.tile_sram = mib(10) * scale;
  c.shared_sram = mib(3) * scale;
  c.noc = mib(4) * scale;
  c.hbm = gib(1) * scale;
  c.link = mib(2) * scale;
  return c;
}

}  // namespace

TEST_CASE("price multiplies counts by the table per component", "[models][energy]") {
  const EnergyTable t = table();
  const ActionCounts c = counts(1.0);
  const Power static_power = watts(120);
  const Duration elapsed = milliseconds(3);
  const EnergyBreakdown e = price(c, t, static_power, elapsed);

  double matrix = 0;
  for (size_t i = 0; i < c.macs.size(); ++i) matrix += c.macs[i] * t.per_mac[i].si();
  CHECK(e.matrix.si() == Approx(matrix));
  CHECK(e.vector.si() == Approx(c.vector_flops * t.per_vector_flop.si()));
  CHECK(e.tile_sram.si() == Approx(c.tile_sram.si() * kBitsPerByte * t.tile_sram.si()));
  CHECK(e.shared_sram.si() == Approx(c.shared_sram.si() * kBitsPerByte * t.shared_sram.si()));
  CHECK(e.noc.si() == Approx(c.noc.si() * kBitsPerByte * t.noc.si()));
  CHECK(e.hbm.si() == Approx(c.hbm.si() * kBitsPerByte * t.hbm.si()));
  CHECK(e.link.si() == Approx(c.link.si() * kBitsPerByte * t.link.si()));
  CHECK(e.static_energy.si() == Approx(static_power.si() * elapsed.si()));

  const std::vector<Energy> parts = e.by_component();
  REQUIRE(parts.size() == component_names().size());
  double sum = 0;
  for (Energy p : parts) sum += p.si();
  CHECK(e.total().si() == Approx(sum));
  CHECK(e.total().si() ==
        Approx(e.matrix.si() + e.vector.si() + e.tile_sram.si() + e.shared_sram.si() + e.noc.si() +
               e.hbm.si() + e.link.si() + e.static_energy.si()));
  CHECK(e.dynamic().si() == Approx(sum - e.static_energy.si()));
  // by_component() follows component_names().
  CHECK(component_names().front() == "matrix");
  CHECK(parts.front() == e.matrix);
  CHECK(component_names().back() == "static");
  CHECK(parts.back() == e.static_energy);
}

TEST_CASE("price pays the chip's active power over the span, as a dynamic component",
          "[models][energy]") {
  const EnergyTable t = table();
  const ActionCounts c = counts(1.0);
  const Duration elapsed = milliseconds(3);
  const EnergyBreakdown without = price(c, t, watts(120), elapsed);
  const EnergyBreakdown with = price(c, t, watts(120), watts(100), elapsed);
  CHECK(without.active.si() == 0.0);
  CHECK(with.active.si() == Approx(100.0 * 3e-3));
  CHECK(with.total().si() == Approx(without.total().si() + 0.3));
  CHECK(with.dynamic().si() == Approx(without.dynamic().si() + 0.3));
  CHECK(with.static_energy == without.static_energy);
  const std::vector<std::string>& names = component_names();
  const size_t k =
      static_cast<size_t>(std::find(names.begin(), names.end(), "active") - names.begin());
  REQUIRE(k < names.size());
  CHECK(with.by_component()[k] == with.active);
}

TEST_CASE("the chip's side of the memory path is paid per HBM bit, in hbm and shared_sram",
          "[models][energy]") {
  // A GPU's HBM bytes also cross its HBM PHY and controller (hbm_phy, priced with the device on
  // its own rail) and are written into and read out of its L2 (hbm_cache, priced with the L2):
  // neither is in the HBM device's pJ/bit nor in the counted shared-SRAM traffic.
  EnergyTable t = table();
  const ActionCounts c = counts(1.0);
  const Duration elapsed = milliseconds(3);
  const EnergyBreakdown without = price(c, t, watts(120), elapsed);
  t.hbm_phy = picojoules_per_bit(0.29);
  t.hbm_cache = picojoules_per_bit(1.2);
  const EnergyBreakdown with = price(c, t, watts(120), elapsed);
  const double hbm_bits = c.hbm.si() * kBitsPerByte;
  CHECK(with.hbm.si() == Approx(without.hbm.si() + hbm_bits * 0.29e-12));
  CHECK(with.shared_sram.si() == Approx(without.shared_sram.si() + hbm_bits * 1.2e-12));
  CHECK(with.total().si() == Approx(without.total().si() + hbm_bits * 1.49e-12));
  // Only HBM bytes pay it: a span that reads nothing from HBM costs what it did.
  ActionCounts no_hbm = c;
  no_hbm.hbm = Bytes(0);
  CHECK(price(no_hbm, t, watts(120), elapsed).total().si() ==
        Approx(price(no_hbm, table(), watts(120), elapsed).total().si()));
  // The memory path of a streamed byte: device, PHY and the L2 fill and read-out.
  CHECK((with.hbm + with.shared_sram - without.shared_sram).si() ==
        Approx(hbm_bits * (3.9 + 0.29 + 1.2) * 1e-12));
}

TEST_CASE("zero counts and zero time cost nothing", "[models][energy]") {
  const EnergyBreakdown e = price(ActionCounts{}, table(), watts(100), Duration{});
  CHECK(e.total().si() == 0.0);
}

TEST_CASE("action counts and energy breakdowns accumulate", "[models][energy]") {
  ActionCounts a = counts(1.0);
  a += counts(2.0);
  const ActionCounts three = counts(3.0);
  for (size_t i = 0; i < a.macs.size(); ++i) CHECK(a.macs[i] == Approx(three.macs[i]));
  CHECK(a.vector_flops == Approx(three.vector_flops));
  CHECK(a.tile_sram.si() == Approx(three.tile_sram.si()));
  CHECK(a.shared_sram.si() == Approx(three.shared_sram.si()));
  CHECK(a.noc.si() == Approx(three.noc.si()));
  CHECK(a.hbm.si() == Approx(three.hbm.si()));
  CHECK(a.link.si() == Approx(three.link.si()));

  // Pricing is linear, so pricing the sum equals summing the prices.
  const EnergyTable t = table();
  EnergyBreakdown sum = price(counts(1.0), t, watts(50), milliseconds(1));
  sum += price(counts(2.0), t, watts(50), milliseconds(2));
  const EnergyBreakdown whole = price(three, t, watts(50), milliseconds(3));
  const std::vector<Energy> got = sum.by_component();
  const std::vector<Energy> want = whole.by_component();
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO(component_names()[i]);
    CHECK(got[i].si() == Approx(want[i].si()));
  }
  CHECK(sum.total().si() == Approx(whole.total().si()));
}
