#include <catch2/catch.hpp>

#include "sim/base/unit_parser.hpp"

using namespace scoville;

TEST_CASE("bandwidth with decimal prefix", "[units]") {
  CHECK(parse<Bandwidth>("4.8 TB/s").si() == Approx(4.8e12));
}
