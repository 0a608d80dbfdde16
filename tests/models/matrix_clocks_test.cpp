// The power-limited matrix clock per precision (models/chip/matrix_clocks.hpp) and the tiling
// policy's library macro tiles (wave quantisation). Expected values follow from the chip built
// here: the power balance is re-evaluated with the DVFS curve, not copied from the code.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/chip/matrix_clocks.hpp"
#include "models/compute/tiling_policy.hpp"
#include "models/power/dvfs_curve.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

ChipParams power_limited_chip() {
  ChipParams c;
  c.name = "power_limited";
  c.tiles.count = 8;
  c.tiles.clock = gigahertz(2.0);
  c.tiles.matrix.rows = 16;
  c.tiles.matrix.cols = 16;
  c.tiles.matrix.k_per_cycle[index_of(MathPrecision::kBf16)] = 1;
  c.tiles.matrix.k_per_cycle[index_of(MathPrecision::kFp8)] = 2;
  c.tiles.matrix.pipeline_latency_cycles = 8;
  c.tiles.matrix.sustained_clock = gigahertz(1.5);
  c.tiles.vector.flops_per_cycle = 32;
  c.tiles.sram = kib(64);
  c.tiles.sram_bandwidth = gigabytes_per_second(512);
  c.shared_sram.capacity = mib(8);
  c.shared_sram.bandwidth = terabytes_per_second(2);
  c.shared_sram.banks = 4;
  c.noc.latency = nanoseconds(20);
  c.hbm.stacks = 2;
  c.hbm.channels_per_stack = 4;
  c.hbm.bandwidth_per_channel = gigabytes_per_second(64);
  c.hbm.capacity = gib(16);
  c.hbm.latency = nanoseconds(100);
  c.hbm.interleave_granule = bytes(256);
  c.power.tdp = watts(100);
  c.power.static_power = watts(20);
  c.power.active_power = watts(10);
  c.power.management.present = true;
  c.power.management.points = {{gigahertz(0.5), Voltage(0.6)},
                               {gigahertz(1.2), Voltage(0.75)},
                               {gigahertz(2.0), Voltage(0.9)}};
  c.power.management.cap = c.power.tdp;
  c.energy.per_mac[index_of(MathPrecision::kBf16)] = picojoules(1.0);
  c.energy.per_mac[index_of(MathPrecision::kFp8)] = picojoules(0.8);
  return c;
}

// P(f) of dense matrix work at precision p, rebuilt from the balance's definition.
double power_at(const ChipParams& c, Frequency f, MathPrecision p, double busy = 1.0) {
  const DvfsCurve curve(c.power.management.points);
  const Frequency fa = c.tiles.matrix.sustained_clock;
  const double s = c.power.static_power.si();
  const double d_a =
      (c.power.tdp.si() - s * curve.static_power_scale(fa)) / curve.dynamic_power_scale(fa);
  const auto per_cycle = [&](MathPrecision q) {
    return static_cast<double>(c.tiles.matrix.macs_per_cycle(q)) *
           c.energy.per_mac[index_of(q)].si();
  };
  double d_p = d_a + c.tiles.clock.si() * static_cast<double>(c.tiles.count) *
                         (per_cycle(p) - per_cycle(MathPrecision::kBf16));
  const double a = c.power.active_power.si();
  d_p = a + busy * (d_p - a);
  return s * curve.static_power_scale(f) + curve.dynamic_power_scale(f) * d_p;
}

WorkDescriptor gemm(int64_t m, int64_t n, int64_t k) {
  WorkDescriptor w;
  w.label = "gemm";
  w.work_class = WorkClass::kMatmul;
  w.m = m;
  w.n = n;
  w.k = k;
  w.math = MathPrecision::kBf16;
  w.flops = Flops(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
  w.stream_bytes = Bytes(2.0 * static_cast<double>(k) * static_cast<double>(n));
  w.activation_in_bytes = Bytes(2.0 * static_cast<double>(m) * static_cast<double>(k));
  w.activation_out_bytes = Bytes(2.0 * static_cast<double>(m) * static_cast<double>(n));
  return w;
}

}  // namespace

TEST_CASE("the measured precision keeps its sustained clock and without one the tile clock") {
  ChipParams c = power_limited_chip();
  CHECK(power_limited_matrix_clock(c, MathPrecision::kBf16) == c.tiles.matrix.sustained_clock);
  c.tiles.matrix.sustained_clock = Frequency(0);
  CHECK(power_limited_matrix_clock(c, MathPrecision::kFp8) == c.tiles.clock);
  resolve_matrix_clocks(c);
  CHECK(c.tiles.matrix_clock(MathPrecision::kFp8) == c.tiles.clock);
}

TEST_CASE("a precision drawing more per cycle holds a lower clock, at exactly the TDP") {
  ChipParams c = power_limited_chip();
  // FP8: 2 x 0.8 pJ per BF16-rate MAC slot against 1.0: more power per cycle.
  const Frequency fp8 = power_limited_matrix_clock(c, MathPrecision::kFp8);
  CHECK(fp8 < c.tiles.matrix.sustained_clock);
  CHECK(power_at(c, fp8, MathPrecision::kFp8) == Approx(c.power.tdp.si()).epsilon(1e-9));
  // The anchor itself sits on the balance.
  CHECK(power_at(c, c.tiles.matrix.sustained_clock, MathPrecision::kBf16) ==
        Approx(c.power.tdp.si()).epsilon(1e-12));
  // The same energy per cycle: the same clock.
  c.energy.per_mac[index_of(MathPrecision::kFp8)] = picojoules(0.5);
  CHECK(power_limited_matrix_clock(c, MathPrecision::kFp8).si() ==
        Approx(c.tiles.matrix.sustained_clock.si()).epsilon(1e-9));
  // Less per cycle: a higher clock, at most the tile clock.
  c.energy.per_mac[index_of(MathPrecision::kFp8)] = picojoules(0.3);
  const Frequency cheap = power_limited_matrix_clock(c, MathPrecision::kFp8);
  CHECK(cheap > c.tiles.matrix.sustained_clock);
  CHECK(cheap <= c.tiles.clock);
  resolve_matrix_clocks(c);
  CHECK(c.tiles.matrix_clock(MathPrecision::kFp8) == cheap);
  CHECK(c.tiles.matrix_clock(MathPrecision::kBf16) == c.tiles.matrix.sustained_clock);
}

TEST_CASE("fewer busy tiles draw less and hold a higher clock") {
  const ChipParams c = power_limited_chip();
  const Frequency half = power_limited_matrix_clock(c, MathPrecision::kBf16, 0.5);
  CHECK(half > c.tiles.matrix.sustained_clock);
  if (half < c.tiles.clock) {
    CHECK(power_at(c, half, MathPrecision::kBf16, 0.5) == Approx(c.power.tdp.si()).epsilon(1e-9));
  }
  CHECK(power_limited_matrix_clock(c, MathPrecision::kBf16, 0.01) == c.tiles.clock);
  CHECK(power_limited_matrix_clock(c, MathPrecision::kBf16, 1.0) == c.tiles.matrix.sustained_clock);
}

TEST_CASE("library macro tiles are dealt to the tiles in waves with the whole reduction") {
  ChipParams c = power_limited_chip();
  c.tiles.library_tile = {32, 32};
  const TilingPolicy policy(c);
  const int64_t k = 256;
  // 160 x 64: 5 x 2 = 10 macro tiles on 8 tiles: two waves, the second on two tiles.
  const TilePlan ten = policy.plan(gemm(160, 64, k));
  std::vector<double> per_tile;
  for (const auto& tile : ten.blocks_per_tile) {
    double m = 0;
    for (const WorkBlock& b : tile) m += b.macs;
    per_tile.push_back(m);
  }
  const double one = 32.0 * 32.0 * static_cast<double>(k);
  CHECK(per_tile[0] == Approx(2 * one));
  CHECK(per_tile[1] == Approx(2 * one));
  CHECK(per_tile[2] == Approx(one));
  CHECK(per_tile[7] == Approx(one));
  // 64 x 96: 2 x 3 = 6 macro tiles would leave two of the 8 tiles idle: the library cuts it
  // finer (the grid), on every tile.
  const TilePlan six = policy.plan(gemm(64, 96, k));
  double macs = 0;
  for (const auto& tile : six.blocks_per_tile) {
    CHECK_FALSE(tile.empty());
    for (const WorkBlock& b : tile) macs += b.macs;
  }
  CHECK(macs == Approx(64.0 * 96.0 * static_cast<double>(k)));
  // Smaller than a macro tile one way: the grid (split over every tile) as well.
  const TilePlan skinny = policy.plan(gemm(16, 64, 4096));
  for (const auto& tile : skinny.blocks_per_tile) CHECK_FALSE(tile.empty());
}

TEST_CASE("a library's smallest tile and split-K bound the grid") {
  ChipParams c = power_limited_chip();  // 8 tiles
  const auto members = [](const TilePlan& plan) {
    int64_t busy = 0;
    for (const auto& tile : plan.blocks_per_tile) busy += tile.empty() ? 0 : 1;
    return busy;
  };
  // 16 x 64 x 4096 on 8 tiles: without a library the grid splits the reduction over all 8.
  CHECK(members(TilingPolicy(c).plan(gemm(16, 64, 4096))) == 8);
  // A library whose smallest tile is 16 x 64 and that splits a reduction at most twice: two
  // members, on two tiles.
  c.tiles.library_tile = {256, 256, 16, 64, 2};
  CHECK(members(TilingPolicy(c).plan(gemm(16, 64, 4096))) == 2);
  // 64 x 128 x 4096: at most 4 x 2 pieces of 16 x 64: all 8 tiles, no split needed.
  CHECK(members(TilingPolicy(c).plan(gemm(64, 128, 4096))) == 8);
  // 16 x 128 x 4096: 2 columns of 64 x 2 ways of the reduction: 4 tiles.
  CHECK(members(TilingPolicy(c).plan(gemm(16, 128, 4096))) == 4);
}

TEST_CASE("the same dies on another board hold the clock at which their work draws its TDP") {
  const ChipParams reference = power_limited_chip();
  // The reference's own board: its own sustained clock.
  CHECK(matrix_clock_on_board(reference, reference).si() ==
        Approx(reference.tiles.matrix.sustained_clock.si()).epsilon(1e-9));
  // More power allowed: a higher clock, on the balance of the reference's work at the new TDP.
  ChipParams board = reference;
  board.power.tdp = watts(120);
  board.power.static_power = watts(25);
  const Frequency raised = matrix_clock_on_board(reference, board);
  CHECK(raised > reference.tiles.matrix.sustained_clock);
  CHECK(raised < board.tiles.clock);
  // P(raised) with the board's static power and the reference's dynamic power: the board's TDP.
  const double ref_at_tdp =
      power_at(reference, raised, MathPrecision::kBf16) -
      reference.power.static_power.si() *
          DvfsCurve(reference.power.management.points).static_power_scale(raised);
  const double board_power =
      ref_at_tdp + board.power.static_power.si() *
                       DvfsCurve(reference.power.management.points).static_power_scale(raised);
  CHECK(board_power == Approx(board.power.tdp.si()).epsilon(1e-9));
  // Twice the tiles at twice the power: the same clock (dynamic power follows the tiles).
  ChipParams twice = reference;
  twice.tiles.count = 2 * reference.tiles.count;
  twice.power.tdp = reference.power.tdp * 2.0;
  twice.power.static_power = reference.power.static_power * 2.0;
  CHECK(matrix_clock_on_board(reference, twice).si() ==
        Approx(reference.tiles.matrix.sustained_clock.si()).epsilon(1e-9));
  // Power to spare at the board's tile clock: the tile clock.
  board.power.tdp = watts(1000);
  CHECK(matrix_clock_on_board(reference, board) == board.tiles.clock);
  // No fitted clock to carry: the board's tile clock.
  ChipParams unfitted = reference;
  unfitted.tiles.matrix.sustained_clock = Frequency(0);
  CHECK(matrix_clock_on_board(unfitted, board) == board.tiles.clock);
}
