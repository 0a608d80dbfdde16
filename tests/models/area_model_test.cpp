// The area and cost models against closed forms derived from their parameters.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/area/area_model.hpp"
#include "models/area/cost_model.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

ProcessNode node() {
  ProcessNode n;
  n.name = "test-node";
  n.logic_density = 100e12;  // 100 MTr/mm^2
  n.sram_bitcell = square_micrometres(0.02);
  n.wafer_price = usd(10000);
  n.defect_density = 0.1e4;  // 0.1 /cm^2
  return n;
}

AreaComponents components() {
  AreaComponents c;
  c.matrix_mac_transistors = 20000;
  c.fp8_mac_share = 0.5;
  c.fp4_mac_share = 0.25;
  c.vector_lane_transistors = 100000;
  c.tile_classes["t"] = TileClass{1e6, 1e4, 0};
  c.cache_bit_over_bitcell = 10;
  c.scratchpad_bit_over_bitcell = 2;
  c.register_file_bit_over_bitcell = 10;
  c.hbm_phy_per_stack = square_millimetres(10);
  c.hbm_controller_transistors = 5e8;
  c.serdes_phy_per_lane = square_millimetres(0.5);
  c.serdes_controller_transistors_per_lane = 4e7;
  c.serdes_lane_payload = gigabytes_per_second(12.5);
  c.uncore_fraction = 0.1;
  return c;
}

ChipParams chip() {
  ChipParams p;
  p.name = "toy";
  p.tiles.count = 10;
  p.tiles.matrix.rows = 16;
  p.tiles.matrix.cols = 16;
  p.tiles.matrix.k_per_cycle[index_of(MathPrecision::kBf16)] = 1;
  p.tiles.matrix.k_per_cycle[index_of(MathPrecision::kFp8)] = 2;
  p.tiles.vector.flops_per_cycle = 64;
  p.tiles.sram = mib(1);
  p.shared_sram.capacity = mib(8);
  p.hbm.stacks = 2;
  p.hbm.capacity = gigabytes(48);
  p.ports.count = 4;
  p.ports.bandwidth_per_port = gigabytes_per_second(50);
  return p;
}

ChipAreaProfile profile() {
  ChipAreaProfile p;
  p.chip = "toy";
  p.node = "test-node";
  p.tile_class = "t";
  p.sram_kind = SramKind::kScratchpad;
  return p;
}

double mm2(const AreaBreakdown& a, const std::string& component) {
  for (const AreaItem& i : a.items) {
    if (i.component == component) return in_mm2(i.total);
  }
  return 0;
}

}  // namespace

TEST_CASE("area: every component is count times its unit area at the node", "[area]") {
  const ProcessNode n = node();
  const AreaBreakdown a =
      estimate_area(chip(), profile(), components(), {&n, nullptr}, square_millimetres(858));
  // 10 tiles x 256 MAC lanes x 20k transistors / 100 MTr/mm^2 (FP8 at 2 x 0.5 = BF16's 1).
  CHECK(mm2(a, "matrix engines") == Approx(10 * 256 * 20000 / 100e6));
  CHECK(mm2(a, "vector units") == Approx(10 * 32 * 1e5 / 100e6));
  CHECK(mm2(a, "tile control and NoC port") == Approx(10 * (1e6 + 32 * 1e4) / 100e6));
  // 1 MiB x 8 bits x 0.02 um^2 x 2 (scratchpad) per tile.
  CHECK(mm2(a, "tile SRAM") == Approx(10 * 1048576.0 * 8 * 0.02e-6 * 2));
  CHECK(mm2(a, "shared SRAM") == Approx(8 * 1048576.0 * 8 * 0.02e-6 * 2));
  CHECK(mm2(a, "HBM PHYs") == Approx(2 * 10.0));
  CHECK(mm2(a, "HBM controllers") == Approx(2 * 5e8 / 100e6));
  // 50 GB/s per port over 12.5 GB/s lanes: 4 lanes per port.
  CHECK(mm2(a, "link SerDes PHYs") == Approx(4 * 4 * 0.5));
  double counted = 0;
  for (const AreaItem& i : a.items) {
    if (i.component.rfind("uncore", 0) != 0) counted += in_mm2(i.total);
  }
  CHECK(mm2(a, "uncore (PCIe, clocks, power, pads)") == Approx(0.1 * counted));
  REQUIRE(a.dies.size() == 1);
  CHECK(in_mm2(a.dies[0].per_die) == Approx(1.1 * counted));
  CHECK(in_mm2(a.total_silicon) == Approx(1.1 * counted));
  CHECK_FALSE(a.dies[0].over_reticle);
}

TEST_CASE("area: the matrix array is sized by its most demanding precision", "[area]") {
  MatrixEngineParams m;
  m.rows = 8;
  m.cols = 8;
  m.k_per_cycle[index_of(MathPrecision::kBf16)] = 1;
  m.k_per_cycle[index_of(MathPrecision::kFp4)] = 12;  // 12 x 0.25 = 3 BF16 lanes
  CHECK(bf16_equivalent_macs(m, components()) == Approx(64 * 3));
}

TEST_CASE("area: more tiles add tile area linearly and flag a die over the reticle", "[area]") {
  const ProcessNode n = node();
  ChipParams big = chip();
  big.tiles.count = 20;
  const AreaBreakdown a =
      estimate_area(chip(), profile(), components(), {&n, nullptr}, square_millimetres(858));
  const AreaBreakdown b =
      estimate_area(big, profile(), components(), {&n, nullptr}, square_millimetres(858));
  CHECK(mm2(b, "matrix engines") == Approx(2 * mm2(a, "matrix engines")));
  CHECK(mm2(b, "HBM PHYs") == Approx(mm2(a, "HBM PHYs")));
  const AreaBreakdown tight =
      estimate_area(big, profile(), components(), {&n, nullptr}, square_millimetres(10));
  CHECK(tight.dies[0].over_reticle);
  CHECK(tight.notes.size() == 1);
}

TEST_CASE("area: I/O dies take the shared SRAM and memory and link interfaces", "[area]") {
  const ProcessNode n = node();
  ProcessNode io = node();
  io.name = "io-node";
  ChipAreaProfile p = profile();
  p.compute_dies = 4;
  p.io_node = "io-node";
  p.io_dies = 2;
  const AreaBreakdown a =
      estimate_area(chip(), p, components(), {&n, &io}, square_millimetres(858));
  REQUIRE(a.dies.size() == 2);
  for (const AreaItem& i : a.items) {
    if (i.component == "shared SRAM" || i.component.rfind("HBM", 0) == 0 ||
        i.component.rfind("link", 0) == 0) {
      CHECK(i.die == DieKind::kIo);
    }
  }
  double io_sum = 0;
  for (const AreaItem& i : a.items) {
    if (i.die == DieKind::kIo) io_sum += in_mm2(i.total);
  }
  CHECK(in_mm2(a.dies[1].per_die) == Approx(io_sum / 2));
}

TEST_CASE("cost: dies per wafer follows the edge-loss formula", "[cost]") {
  const double pi = std::acos(-1.0);
  const double a = 100e-6;  // 100 mm^2
  const double expected = std::floor(pi * 0.15 * 0.15 / a - pi * 0.3 / std::sqrt(2 * a));
  CHECK(dies_per_wafer(Area(a), 0.3) == expected);
  CHECK(dies_per_wafer(square_millimetres(814), 0.3) == 63);  // 86.8 - 23.4, floored
}

TEST_CASE("cost: yield models agree at small dies and match their closed forms", "[cost]") {
  const Area die = square_millimetres(800);
  const double d0 = 0.1e4;  // 0.8 expected defects per die
  CHECK(die_yield(die, d0, YieldModel::kNegativeBinomial, 3) == Approx(std::pow(1 + 0.8 / 3, -3)));
  const double f = (1 - std::exp(-0.8)) / 0.8;
  CHECK(die_yield(die, d0, YieldModel::kMurphy, 3) == Approx(f * f));
  // Negative binomial tends to Poisson e^-AD as alpha grows.
  CHECK(die_yield(die, d0, YieldModel::kNegativeBinomial, 1e6) == Approx(std::exp(-0.8)));
  CHECK(die_yield(square_millimetres(1), d0, YieldModel::kMurphy, 3) == Approx(1).epsilon(1e-3));
}

TEST_CASE("cost: total is the sum of its terms, each shown", "[cost]") {
  const ProcessNode n = node();
  const AreaBreakdown a =
      estimate_area(chip(), profile(), components(), {&n, nullptr}, square_millimetres(858));
  CostParams c;
  c.hbm_per_gb = usd(10);
  c.interposer_per_mm2 = usd(0.5);
  c.hbm_stack_footprint = square_millimetres(100);
  c.interposer_over_silicon = 1.2;
  c.test_and_assembly = usd(500);
  const CostBreakdown k = estimate_cost(a, chip(), 2, {{n.name, n}}, c);
  const double die = in_mm2(a.dies[0].per_die);
  const double good = dies_per_wafer(a.dies[0].per_die, 0.3) *
                      die_yield(a.dies[0].per_die, n.defect_density, c.yield_model, 3);
  CHECK(k.items[0].total.si() == Approx(10000 / good));
  CHECK(k.items[1].total.si() == Approx(48 * 10.0));
  CHECK(in_mm2(k.interposer) == Approx((die + 200) * 1.2));
  CHECK(k.items[2].total.si() == Approx((die + 200) * 1.2 * 0.5));
  CHECK(k.items[3].total.si() == Approx(500));
  double sum = 0;
  for (const CostItem& i : k.items) sum += i.total.si();
  CHECK(k.total.si() == Approx(sum));
}
