// ChipParams: peak rates and the precision an engine executes a requested precision at.
#include <catch2/catch.hpp>

#include "models/chip/chip_params.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

ChipParams chip_with(int64_t bf16_k, int64_t fp8_k, int64_t fp4_k) {
  ChipParams c;
  c.tiles.count = 12;
  c.tiles.clock = gigahertz(1.5);
  c.tiles.matrix.rows = 32;
  c.tiles.matrix.cols = 16;
  c.tiles.matrix.k_per_cycle[index_of(MathPrecision::kBf16)] = bf16_k;
  c.tiles.matrix.k_per_cycle[index_of(MathPrecision::kFp8)] = fp8_k;
  c.tiles.matrix.k_per_cycle[index_of(MathPrecision::kFp4)] = fp4_k;
  c.tiles.vector.flops_per_cycle = 128;
  return c;
}

}  // namespace

TEST_CASE("peak flop rate is 2 x rows x cols x k x tiles x clock", "[models][chip_params]") {
  const ChipParams c = chip_with(1, 2, 4);
  const double base = 2.0 * static_cast<double>(c.tiles.matrix.rows * c.tiles.matrix.cols) *
                      static_cast<double>(c.tiles.count) * c.tiles.clock.si();
  for (MathPrecision p : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
    const double k = static_cast<double>(c.tiles.matrix.k_per_cycle[index_of(p)]);
    CHECK(c.peak_flop_rate(p).si() == Approx(base * k));
  }
  const ChipParams no_fp4 = chip_with(1, 2, 0);
  CHECK(no_fp4.peak_flop_rate(MathPrecision::kFp4).si() == 0.0);
  CHECK(c.peak_vector_rate().si() ==
        Approx(c.tiles.vector.flops_per_cycle * static_cast<double>(c.tiles.count) *
               c.tiles.clock.si()));
}

TEST_CASE("executed precision falls back to the next wider supported one",
          "[models][chip_params]") {
  SECTION("supported precisions run as themselves") {
    const ChipParams c = chip_with(1, 2, 4);
    for (MathPrecision p : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
      REQUIRE(c.executed_precision(p).has_value());
      CHECK(*c.executed_precision(p) == p);
    }
  }
  SECTION("fp4 on an fp8 and bf16 engine runs as fp8") {
    const ChipParams c = chip_with(1, 2, 0);
    REQUIRE(c.executed_precision(MathPrecision::kFp4).has_value());
    CHECK(*c.executed_precision(MathPrecision::kFp4) == MathPrecision::kFp8);
    CHECK(*c.executed_precision(MathPrecision::kFp8) == MathPrecision::kFp8);
    CHECK(*c.executed_precision(MathPrecision::kBf16) == MathPrecision::kBf16);
  }
  SECTION("fp4 and fp8 on a bf16-only engine run as bf16") {
    const ChipParams c = chip_with(1, 0, 0);
    REQUIRE(c.executed_precision(MathPrecision::kFp4).has_value());
    CHECK(*c.executed_precision(MathPrecision::kFp4) == MathPrecision::kBf16);
    CHECK(*c.executed_precision(MathPrecision::kFp8) == MathPrecision::kBf16);
  }
  SECTION("a wider precision never runs narrower") {
    const ChipParams c = chip_with(0, 0, 4);
    CHECK_FALSE(c.executed_precision(MathPrecision::kBf16).has_value());
    CHECK_FALSE(c.executed_precision(MathPrecision::kFp8).has_value());
    CHECK(*c.executed_precision(MathPrecision::kFp4) == MathPrecision::kFp4);
  }
}
