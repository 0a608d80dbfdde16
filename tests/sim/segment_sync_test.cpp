// Chips meeting at every collective: each segment between collectives lasts as long as its
// slowest chip's compute.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "sim/engine/segment_sync.hpp"

using namespace scoville;
using namespace scoville::engine;

namespace {
Duration us(double v) { return Duration(v * 1e-6); }
}  // namespace

TEST_CASE("a synchronised group takes each segment's slowest chip", "[segment_sync]") {
  // Three ops in two segments (a collective after op 0). Chip 0 is slower in segment 0, chip 1
  // in segment 1, so the group is slower than either chip alone.
  const std::vector<std::vector<Duration>> t = {{us(5), us(1), us(1)}, {us(2), us(3), us(2)}};
  const std::vector<int64_t> segment = {0, 1, 1};
  CHECK(critical_chips(t, segment) == std::vector<size_t>{0, 1, 1});
  const Duration group = synchronised_compute_time(t, segment);
  CHECK(group.si() == Approx((5 + 3 + 2) * 1e-6));
  CHECK(group.si() > (5 + 1 + 1) * 1e-6);  // chip 0 alone
  CHECK(group.si() > (2 + 3 + 2) * 1e-6);  // chip 1 alone
  // No collective at all: the slowest chip's total (the unsynchronised answer).
  CHECK(synchronised_compute_time(t, {0, 0, 0}).si() == Approx(7e-6));
  // Identical chips: any one of them, exactly (the first on ties).
  const std::vector<std::vector<Duration>> same = {t[0], t[0]};
  CHECK(critical_chips(same, segment) == std::vector<size_t>{0, 0, 0});
  CHECK(synchronised_compute_time(same, segment).si() == (us(5) + us(1) + us(1)).si());
}

TEST_CASE("segment synchronisation refuses mismatched programs", "[segment_sync]") {
  CHECK_THROWS_AS(critical_chips({}, {0}), std::invalid_argument);
  CHECK_THROWS_AS(critical_chips({{us(1)}, {us(1), us(2)}}, {0}), std::invalid_argument);
}
