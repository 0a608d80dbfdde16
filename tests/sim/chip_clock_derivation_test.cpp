// The sustained matrix clocks that the chip files state as derived, not fitted: each board that
// shares its dies with a fitted one states the clock at which the fitted board's dense BF16 work
// draws its own TDP (models/chip/matrix_clocks.hpp, matrix_clock_on_board). The files carry the
// number so that a reader sees it; this re-derives it, so that a changed TDP, static power or
// reference fit cannot leave it stale.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/chip/matrix_clocks.hpp"
#include "models/compute/tiling_policy.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/config_files.hpp"
#include "sim/config/data_paths.hpp"

using namespace scoville;

TEST_CASE("derived sustained clocks in the chip files follow from their reference's fit",
          "[chips][power]") {
  const config::DataPaths paths = config::DataPaths{SCOVILLE_SOURCE_DIR};
  struct Derived {
    const char* reference;
    const char* board;
  };
  for (const Derived d :
       {Derived{"b200", "b300"}, Derived{"b200", "gb200"}, Derived{"b200", "gb300"},
        Derived{"mi300x", "mi325x"}, Derived{"mi355x", "mi350x"}}) {
    INFO(d.board << " from " << d.reference);
    const models::ChipParams reference = config::load_chip(d.reference, paths);
    const models::ChipParams board = config::load_chip(d.board, paths);
    REQUIRE(reference.tiles.matrix.sustained_clock.si() > 0);
    const double derived = models::matrix_clock_on_board(reference, board).si();
    // The files round to a MHz.
    CHECK(std::abs(board.tiles.matrix.sustained_clock.si() - derived) <= 1e6);
    // A board with more power per tile than its reference holds a higher clock.
    const double per_tile = board.power.tdp.si() / static_cast<double>(board.tiles.count);
    const double ref_per_tile =
        reference.power.tdp.si() / static_cast<double>(reference.tiles.count);
    if (per_tile > ref_per_tile) CHECK(derived > reference.tiles.matrix.sustained_clock.si());
  }
}

// The op cache keys each op by the chip's fingerprint (sim/engine/simulated_op_cost.cpp). A
// matmul whose library tiles leave CUs idle runs at the clock where the chip-wide active power
// plus the busy tiles' share draw the TDP, so on a chip with library tiles the active power
// times ops: a chip that differs in it alone must not reuse another's cached ops. Without
// library tiles it prices energy only, and a what-if on it reuses the cache.
TEST_CASE("a chip's active power times a partly busy matmul and keys the op cache",
          "[chips][power][op_table]") {
  const config::DataPaths paths = config::DataPaths{SCOVILLE_SOURCE_DIR};
  // MI300X states library macro tiles and a sustained clock; its file states no active power, so
  // the what-if an architect would try sets one.
  models::ChipParams shipped = config::load_chip("mi300x", paths);
  REQUIRE(shipped.tiles.library_tile.present());
  shipped.power.active_power = watts(50);
  models::ChipParams more_active = shipped;
  more_active.power.active_power = watts(150);

  // Macro tiles for three quarters of the CUs: one wave, a quarter idle.
  models::WorkDescriptor w;
  w.label = "partly busy gemm";
  w.work_class = models::WorkClass::kMatmul;
  w.m = shipped.tiles.library_tile.rows;
  w.n = shipped.tiles.count * 3 / 4 * shipped.tiles.library_tile.cols;
  w.k = 8192;
  w.math = MathPrecision::kBf16;
  w.flops = Flops(2.0 * static_cast<double>(w.m * w.n * w.k));
  w.stream_bytes = Bytes(2.0 * static_cast<double>(w.k * w.n));
  w.activation_in_bytes = Bytes(2.0 * static_cast<double>(w.m * w.k));
  w.activation_out_bytes = Bytes(2.0 * static_cast<double>(w.m * w.n));
  const auto busy_clock = [&w](const models::ChipParams& chip) {
    const models::TilePlan plan = models::TilingPolicy(chip).plan(w);
    for (const auto& tile : plan.blocks_per_tile) {
      if (!tile.empty()) return tile.front().matrix_clock.si();
    }
    return 0.0;
  };
  const double shipped_clock = busy_clock(shipped);
  REQUIRE(shipped_clock > shipped.tiles.matrix.sustained_clock.si());
  REQUIRE(shipped_clock < shipped.tiles.clock.si());
  // More power drawn chip-wide leaves less for the busy tiles: a lower clock, a slower op.
  CHECK(busy_clock(more_active) < shipped_clock);
  CHECK(config::chip_fingerprint(more_active) != config::chip_fingerprint(shipped));
  CHECK(config::chip_fingerprint(shipped) == config::chip_fingerprint(shipped));

  const models::ChipParams h100 = config::load_chip("h100", paths);
  REQUIRE_FALSE(models::active_power_times_ops(h100));
  models::ChipParams h100_more_active = h100;
  h100_more_active.power.active_power = h100.power.active_power * 3.0;
  CHECK(config::chip_fingerprint(h100_more_active) == config::chip_fingerprint(h100));
}
