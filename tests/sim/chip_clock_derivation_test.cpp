// The sustained matrix clocks that the chip files state as derived, not fitted: each board that
// shares its dies with a fitted one states the clock at which the fitted board's dense BF16 work
// draws its own TDP (models/chip/matrix_clocks.hpp, matrix_clock_on_board). The files carry the
// number so that a reader sees it; this re-derives it, so that a changed TDP, static power or
// reference fit cannot leave it stale.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/chip/matrix_clocks.hpp"
#include "sim/config/chip_loader.hpp"
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
