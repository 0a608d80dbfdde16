// CollectiveTimer on a pool that does not start at endpoint 0 (the decode pool of disaggregated
// serving sits after the prefill pool's chips).
#include <catch2/catch.hpp>

#include "sim/base/error.hpp"
#include "sim/engine/collective_timer.hpp"
#include "tests/models/network_fixtures.hpp"

using namespace scoville;

namespace {

workloads::ParallelDegrees tp(int64_t n) {
  workloads::ParallelDegrees d;
  d.tp = n;
  d.ep = 1;
  return d;
}

workloads::Collective all_reduce(int64_t n) {
  workloads::Collective c;
  c.kind = workloads::CollectiveKind::kAllReduce;
  c.group = "tp";
  c.group_size = n;
  c.bytes = Bytes(16.0 * 1024 * 1024);
  return c;
}

}  // namespace

TEST_CASE("collective timer: an offset pool's groups are its own endpoints", "[collective_timer]") {
  const models::Topology topo =
      models::build_topology(test::hierarchical_spec(test::switch_spec(8), 2, 16));
  engine::CollectiveTimer at_zero(topo, tp(8), 8);
  engine::CollectiveTimer aligned(topo, tp(8), 8, 8);
  engine::CollectiveTimer straddling(topo, tp(8), 8, 4);
  const auto members = straddling.groups("tp", 0);
  REQUIRE(members.size() == 1);
  CHECK(members.front().front() == 4);
  CHECK(members.front().back() == 11);
  CHECK(aligned.groups("tp", 0).front().front() == 8);
  // Both domains are the same switch: the aligned pool times as the pool at zero; the
  // straddling one crosses the scale-out and is slower.
  const engine::CollectiveTiming zero = at_zero.time(all_reduce(8), 0);
  const engine::CollectiveTiming second = aligned.time(all_reduce(8), 0);
  const engine::CollectiveTiming across = straddling.time(all_reduce(8), 0);
  CHECK_FALSE(zero.scale_out);
  CHECK_FALSE(second.scale_out);
  CHECK(across.scale_out);
  CHECK(second.time.si() == Approx(zero.time.si()).epsilon(1e-12));
  CHECK(across.time > zero.time);
  // A KV hand-over from the offset pool goes from its own chips.
  engine::CollectiveTimer first_half(topo, tp(4), 4, 4);
  const engine::CollectiveTiming shift = first_half.shift(4, Bytes(1e6));
  REQUIRE(shift.schedule);
  CHECK(shift.schedule->front().transfers.front().src == 4);
  CHECK(shift.schedule->front().transfers.front().dst == 8);
  CHECK(shift.scale_out);
  CHECK_THROWS_AS(engine::CollectiveTimer(topo, tp(8), 8, 9), InputError);
  CHECK_THROWS_AS(first_half.shift(9, Bytes(1e6)), InputError);
}
