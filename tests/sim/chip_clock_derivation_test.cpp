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

// A GEMM library uses its largest macro tile only where those tiles fill the chip; a GEMM whose
// macro tiles would leave CUs idle is cut finer, so every CU works at the chip's sustained clock
// and the active power prices energy only: a what-if on it reuses the op cache.
TEST_CASE("a matmul too small for the library's macro tiles keeps every CU busy",
          "[chips][power][op_table]") {
  const config::DataPaths paths = config::DataPaths{SCOVILLE_SOURCE_DIR};
  models::ChipParams shipped = config::load_chip("mi300x", paths);
  REQUIRE(shipped.tiles.library_tile.present());
  const models::LibraryTileParams& lib = shipped.tiles.library_tile;

  const auto gemm = [](int64_t m, int64_t n, int64_t k) {
    models::WorkDescriptor w;
    w.label = "gemm";
    w.work_class = models::WorkClass::kMatmul;
    w.m = m;
    w.n = n;
    w.k = k;
    w.math = MathPrecision::kBf16;
    w.flops = Flops(2.0 * static_cast<double>(m * n * k));
    w.stream_bytes = Bytes(2.0 * static_cast<double>(k * n));
    w.activation_in_bytes = Bytes(2.0 * static_cast<double>(m * k));
    w.activation_out_bytes = Bytes(2.0 * static_cast<double>(m * n));
    return w;
  };
  const auto busy_tiles = [&shipped](const models::WorkDescriptor& w) {
    const models::TilePlan plan = models::TilingPolicy(shipped).plan(w);
    int64_t busy = 0;
    for (const auto& tile : plan.blocks_per_tile) busy += tile.empty() ? 0 : 1;
    return busy;
  };
  // Macro tiles for three quarters of the CUs: the library would leave a quarter idle, so the
  // GEMM takes the grid, on every CU.
  CHECK(busy_tiles(gemm(lib.rows, shipped.tiles.count * 3 / 4 * lib.cols, 8192)) ==
        shipped.tiles.count);
  // 256 rows x 256 columns: one macro tile, which the library would run on one CU.
  CHECK(busy_tiles(gemm(256, 256, 7168)) > 1);
  // Macro tiles for one and a quarter waves: the library's tiles, every CU busy in the first, a
  // quarter of them given a second macro tile.
  const models::WorkDescriptor waves = gemm(lib.rows, shipped.tiles.count * 5 / 4 * lib.cols, 8192);
  CHECK(busy_tiles(waves) == shipped.tiles.count);
  const models::TilePlan plan = models::TilingPolicy(shipped).plan(waves);
  const auto macs = [](const std::vector<models::WorkBlock>& tile) {
    double sum = 0;
    for (const models::WorkBlock& b : tile) sum += b.macs;
    return sum;
  };
  CHECK(macs(plan.blocks_per_tile.front()) == Approx(2 * macs(plan.blocks_per_tile.back())));

  models::ChipParams more_active = shipped;
  more_active.power.active_power = watts(150);
  CHECK(config::chip_fingerprint(more_active) == config::chip_fingerprint(shipped));
}
